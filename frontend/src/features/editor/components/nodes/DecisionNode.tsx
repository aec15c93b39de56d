import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { DecisionNode as DecisionNodeType } from '../../model/graph';
import { generatorDetail } from './detail';
import { ModuleCard } from './ModuleNode';

/** A Decision (or MultiDecision): a Generator whose answer is one of its labels. */
export const DecisionNode = memo(function DecisionNode({
  id,
  data,
  selected,
}: NodeProps<DecisionNodeType>) {
  return (
    <ModuleCard
      id={id}
      kind={data.kind}
      name={data.config.name}
      selected={selected}
      detail={`${data.config.labels.join(' / ')} · ${generatorDetail(data, [data.variable])}`}
    />
  );
});
