import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { PlainNode as PlainNodeType } from '../../model/graph';
import { ModuleCard } from './ModuleNode';

/** Merges, masks, Not and Identity: no text to train; the card shows what they output. */
export const PlainNode = memo(function PlainNode({ id, data, selected }: NodeProps<PlainNodeType>) {
  const mask = data.config.mask;
  return (
    <ModuleCard
      id={id}
      kind={data.kind}
      name={data.config.name}
      selected={selected}
      detail={mask ? `${data.kind === 'InMask' ? 'keeps' : 'drops'} ${mask.join(', ')}` : undefined}
    />
  );
});
