import type { GeneratorNodeData } from '../../model/graph';

/** One line under a Generator's fields: model, temperature, examples, frozen. */
export function generatorDetail(data: GeneratorNodeData): string {
  const parts = [String(data.config.language_model.config.model ?? 'model?')];
  if (data.config.temperature !== null) parts.push(`T=${data.config.temperature}`);
  const examples = data.variable.examples.length;
  if (examples > 0) parts.push(`${examples} example${examples === 1 ? '' : 's'}`);
  if (!data.config.trainable) parts.push('frozen');
  return parts.join(' · ');
}
