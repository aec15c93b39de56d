import { REASONING_EFFORTS, type GeneratorConfig, type ReasoningEffort } from '../model/document';
import {
  parseSampling,
  SAMPLING_LABELS,
  samplingText,
  type NumericSamplingKey,
  type SamplingKey,
} from '../model/sampling';
import { CommitField } from './CommitField';
import styles from './editor.module.css';

/** The sampling settings of a Generator's config (a drawn one's, a Branch's decision's...). */
export type SamplingConfig = Pick<GeneratorConfig, SamplingKey>;

function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: React.ReactNode;
  hint?: string;
}) {
  return (
    <label className={styles.field}>
      <span className={styles.fieldLabel}>{label}</span>
      {children}
      {hint && <span className={styles.hint}>{hint}</span>}
    </label>
  );
}

const NUMERIC_SAMPLING: {
  key: NumericSamplingKey;
  inputMode: 'decimal' | 'numeric';
  hint: string;
}[] = [
  {
    key: 'temperature',
    inputMode: 'decimal',
    hint: "0 or more. Empty: the language model's temperature.",
  },
  {
    key: 'max_tokens',
    inputMode: 'numeric',
    hint: "The longest answer, 1 or more. Empty: the language model's, else room for the longest answer the data model allows.",
  },
  {
    key: 'top_p',
    inputMode: 'decimal',
    hint: "Above 0, at most 1. Empty: the provider's default.",
  },
  {
    key: 'top_k',
    inputMode: 'numeric',
    hint: "1 or more, sent to providers that take it. Empty: the provider's default.",
  },
];

const EFFORT_LABELS: Record<ReasoningEffort, string> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  disable: "disable (turn an Ollama model's thinking off)",
  none: 'none (send nothing)',
};

/**
 * How the language model samples this module's answers; an empty setting is not set here.
 * `owner` names the Generator when a panel shows several (a Branch's decision and its
 * labels' modules): the fields' accessible names then end with it.
 */
export function SamplingSettings({
  config,
  patch,
  owner,
}: {
  config: SamplingConfig;
  patch: (change: Partial<SamplingConfig>) => string | null;
  owner?: string;
}) {
  const named = (label: string) => (owner ? `${label} (${owner})` : label);
  return (
    <section className={styles.section}>
      <h3 className={styles.sectionTitle}>{owner ? `Sampling of ${owner}` : 'Sampling'}</h3>
      {NUMERIC_SAMPLING.map(({ key, inputMode, hint }) => (
        <Field key={key} label={SAMPLING_LABELS[key]} hint={hint}>
          <CommitField
            label={named(SAMPLING_LABELS[key])}
            inputMode={inputMode}
            value={samplingText(config[key])}
            onCommit={(text) => {
              const parsed = parseSampling(key, text);
              return parsed.ok ? patch({ [key]: parsed.value }) : parsed.reason;
            }}
          />
        </Field>
      ))}
      <Field
        label={SAMPLING_LABELS.reasoning_effort}
        hint="Sent to models that reason; their hidden reasoning gets room within max tokens."
      >
        <select
          className="select"
          aria-label={named(SAMPLING_LABELS.reasoning_effort)}
          value={config.reasoning_effort ?? ''}
          onChange={(e) =>
            patch({ reasoning_effort: (e.target.value || null) as ReasoningEffort | null })
          }
        >
          <option value="">provider default</option>
          {REASONING_EFFORTS.map((effort) => (
            <option key={effort} value={effort}>
              {EFFORT_LABELS[effort]}
            </option>
          ))}
        </select>
      </Field>
    </section>
  );
}
