import type { Lineage, LineageCandidate } from '../api/runsLineage';

const candidate = (
  n: number,
  fields: Partial<LineageCandidate> & Pick<LineageCandidate, 'operation'>,
): LineageCandidate => ({
  id: `generator/state#${n}`,
  parents: [],
  epoch: 0,
  step: n,
  reward: null,
  nb_evaluations: 1,
  score: null,
  value: null,
  in_population: false,
  best: false,
  dropped_at: null,
  merged_into: null,
  rows_scored: 0,
  comparisons: [],
  ...fields,
});

const example = (country: string, city: string, reward = 1) => ({
  inputs: { query: `What is the capital of ${country}?` },
  outputs: { answer: city },
  reward,
});

/**
 * An OMEGA run's lineage as the API answers it: the initial value, two mutations, a
 * crossover of them (the best), and a mutation merged into its identical twin.
 */
export const omegaLineage: Lineage = {
  run: 7,
  optimizer: 'omega',
  rows: [
    { index: 3, input: '{"query": "What is the capital of Peru?"}', expected: '{"answer": "Lima"}' },
    { index: 5, input: '{"query": "What is the capital of Chad?"}', expected: '{"answer": "N\'Djamena"}' },
  ],
  variables: [
    {
      name: 'generator/state',
      best: 'generator/state#4',
      nodes: [
        candidate(1, {
          operation: 'init',
          reward: 0.25,
          score: 0.4,
          in_population: true,
          rows_scored: 8,
          value: { instructions: 'Answer the question.', examples: [] },
        }),
        candidate(2, {
          operation: 'mutation',
          parents: ['generator/state#1'],
          reward: 0.5,
          score: 0.3,
          dropped_at: 1,
          rows_scored: 4,
          value: {
            instructions: 'Answer with the city name.',
            examples: [example('France', 'Paris')],
          },
          comparisons: [
            {
              parent: 'generator/state#1',
              shared: 4,
              tied: 2,
              won: [{ row: 3, reward: 1, parent_reward: 0 }],
              lost: [{ row: 5, reward: 0, parent_reward: 1 }],
            },
          ],
        }),
        candidate(3, {
          operation: 'mutation',
          parents: ['generator/state#1'],
          reward: 0,
          in_population: true,
          value: { instructions: 'Answer briefly.', examples: [example('Spain', 'Madrid')] },
          comparisons: [
            { parent: 'generator/state#1', shared: 0, tied: 0, won: [], lost: [] },
          ],
        }),
        candidate(4, {
          operation: 'crossover',
          parents: ['generator/state#2', 'generator/state#3'],
          epoch: 1,
          reward: 1,
          score: 1,
          in_population: true,
          best: true,
          value: {
            instructions: 'Answer with the capital city name only.',
            examples: [example('France', 'Paris', 0.5), example('Peru', 'Lima')],
          },
          comparisons: [
            {
              parent: 'generator/state#2',
              shared: 2,
              tied: 1,
              won: [{ row: 5, reward: 1, parent_reward: 0 }],
              lost: [],
            },
            { parent: 'generator/state#3', shared: 0, tied: 0, won: [], lost: [] },
          ],
        }),
        candidate(5, {
          operation: 'mutation',
          parents: ['generator/state#3'],
          epoch: 1,
          reward: 0,
          merged_into: 'generator/state#3',
          value: { instructions: 'Answer briefly.', examples: [example('Spain', 'Madrid')] },
        }),
      ],
      edges: [
        { id: 'generator/state#1->generator/state#2', source: 'generator/state#1', target: 'generator/state#2', crossover: false },
        { id: 'generator/state#1->generator/state#3', source: 'generator/state#1', target: 'generator/state#3', crossover: false },
        { id: 'generator/state#2->generator/state#4', source: 'generator/state#2', target: 'generator/state#4', crossover: true },
        { id: 'generator/state#3->generator/state#4', source: 'generator/state#3', target: 'generator/state#4', crossover: true },
        { id: 'generator/state#3->generator/state#5', source: 'generator/state#3', target: 'generator/state#5', crossover: false },
        { id: 'generator/state#9->generator/state#5', source: 'generator/state#9', target: 'generator/state#5', crossover: false },
      ],
    },
  ],
};
