import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { CandidateNode as CandidateNodeType } from '../../model/lineageGraph';
import { shortId } from '../../model/lineageGraph';
import styles from './lineage.module.css';

const fmt = (v: number | null) => (v === null ? '—' : v.toFixed(2));

/** One candidate: its id and operation, reward and DNS score; survivors and the best marked. */
function CandidateNodeView({ data, selected }: NodeProps<CandidateNodeType>) {
  const { candidate, label, fill, highlighted } = data;
  const status = candidate.best
    ? styles.best
    : candidate.in_population
      ? styles.survived
      : styles.gone;
  return (
    <div
      className={`${styles.node} ${status} ${selected ? styles.selected : ''} ${
        highlighted ? styles.onLine : ''
      }`}
      style={{ background: fill }}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className={styles.port} />
      <div className={styles.nodeHead}>
        <b className="mono">{label}</b>
        <span className={styles.op}>{candidate.operation.replace('_', '-')}</span>
        {candidate.best && (
          <span className={styles.flag} title="the candidate training ended with">
            ★ best
          </span>
        )}
      </div>
      <div className={styles.nodeFigures}>
        <span title="mean reward">r {fmt(candidate.reward)}</span>
        {candidate.score !== null && <span title="DNS score">dns {fmt(candidate.score)}</span>}
      </div>
      <div className={styles.nodeFate}>
        {candidate.in_population
          ? 'survived'
          : candidate.merged_into
            ? `= ${shortId(candidate.merged_into)}`
            : candidate.dropped_at !== null
              ? `dropped e${candidate.dropped_at}`
              : 'not kept'}
      </div>
      <Handle
        type="source"
        position={Position.Bottom}
        isConnectable={false}
        className={styles.port}
      />
    </div>
  );
}

export const CandidateNode = memo(CandidateNodeView);
