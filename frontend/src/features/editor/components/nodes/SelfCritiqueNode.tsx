import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { SelfCritiqueNode as SelfCritiqueNodeType } from '../../model/graph';
import { generatorDetail } from './detail';
import { ModuleCard } from './ModuleNode';

/** A SelfCritique: a critic Generator (and, revising, a reviser) over its inputs. */
export const SelfCritiqueNode = memo(function SelfCritiqueNode({
  id,
  data,
  selected,
}: NodeProps<SelfCritiqueNodeType>) {
  const what = data.config.revise ? 'critique, revise' : 'critique';
  return (
    <ModuleCard
      id={id}
      kind="SelfCritique"
      name={data.config.name}
      selected={selected}
      detail={`${what} · ${generatorDetail(data, Object.values(data.variables))}`}
    />
  );
});
