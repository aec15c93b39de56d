import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { BranchNode as BranchNodeType } from '../../model/graph';
import { generatorDetail } from './detail';
import { ModuleCard } from './ModuleNode';

/** A Branch: one output handle per label; an edge from label k's handle reads slot k. */
export const BranchNode = memo(function BranchNode({
  id,
  data,
  selected,
}: NodeProps<BranchNodeType>) {
  const held = data.config.branches.map((b) => (b ? String(b.config.name) : 'passes the input on'));
  return (
    <ModuleCard
      id={id}
      kind="Branch"
      name={data.config.name}
      selected={selected}
      slots={data.config.labels}
      detail={`${held.join(' / ')} · ${generatorDetail(data, Object.values(data.variables))}`}
    />
  );
});
