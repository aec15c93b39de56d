import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { ChainOfThoughtNode as ChainOfThoughtNodeType } from '../../model/graph';
import { generatorDetail } from './detail';
import { ModuleCard } from './ModuleNode';

export const ChainOfThoughtNode = memo(function ChainOfThoughtNode({
  id,
  data,
  selected,
}: NodeProps<ChainOfThoughtNodeType>) {
  return (
    <ModuleCard
      id={id}
      kind="ChainOfThought"
      name={data.config.name}
      dataModel={data.config.data_model}
      selected={selected}
      detail={generatorDetail(data, [data.variable])}
    />
  );
});
