import type { SerializedObject, VariableJson } from '../../model/document';

type Trained = {
  config: { language_model: SerializedObject; temperature?: unknown; trainable: boolean };
};

/** One line under a module that calls a language model: model, temperature, examples, frozen. */
export function generatorDetail(data: Trained, variables: VariableJson[]): string {
  const parts = [String(data.config.language_model.config.model ?? 'model?')];
  const temperature = data.config.temperature;
  if (temperature !== null && temperature !== undefined) parts.push(`T=${String(temperature)}`);
  const examples = variables.reduce((sum, v) => sum + v.examples.length, 0);
  if (examples > 0) parts.push(`${examples} example${examples === 1 ? '' : 's'}`);
  if (!data.config.trainable) parts.push('frozen');
  return parts.join(' · ');
}
