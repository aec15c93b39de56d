import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { InputNode as InputNodeType } from '../../model/graph';
import { ModuleCard } from './ModuleNode';

export const InputNode = memo(function InputNode({ id, data, selected }: NodeProps<InputNodeType>) {
  return (
    <ModuleCard
      id={id}
      kind="Input"
      name={data.config.name}
      dataModel={data.config.data_model}
      selected={selected}
    />
  );
});
