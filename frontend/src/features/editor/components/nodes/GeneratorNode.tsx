import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { GeneratorNode as GeneratorNodeType } from '../../model/graph';
import { generatorDetail } from './detail';
import { ModuleCard } from './ModuleNode';

export const GeneratorNode = memo(function GeneratorNode({
  id,
  data,
  selected,
}: NodeProps<GeneratorNodeType>) {
  return (
    <ModuleCard
      id={id}
      kind="Generator"
      name={data.config.name}
      dataModel={data.config.data_model}
      selected={selected}
      detail={generatorDetail(data, [data.variable])}
    />
  );
});
