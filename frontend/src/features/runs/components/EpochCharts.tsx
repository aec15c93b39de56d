import { useMemo } from 'react';
import { EChart } from '@/lib/charts/EChart';
import {
  curveGroups,
  epochCurves,
  lineOption,
  type EpochLogs,
  type RunView,
} from '../model/runView';

/**
 * Every logged figure over epochs, one chart per figure with its validation twin. A fork
 * also shows the epochs it inherited from its parent (`inherited`), grey and dashed.
 */
export function EpochCharts({
  view,
  inherited,
  inheritedFrom = null,
}: {
  view: RunView;
  inherited?: EpochLogs;
  inheritedFrom?: number | null;
}) {
  const groups = useMemo(() => {
    const curves = epochCurves(view, inherited);
    return curveGroups(curves).map((g) => ({
      ...g,
      option: lineOption(g.title, curves.epochs, g.series, inheritedFrom),
    }));
  }, [view.epochLogs, inherited, inheritedFrom]); // eslint-disable-line react-hooks/exhaustive-deps -- only epoch logs matter
  if (groups.length === 0)
    return <p className="note">The first epoch's figures appear here when it ends.</p>;
  return (
    <>
      {inherited && inherited.size > 0 && (
        <p className="note" data-testid="inherited-note">
          {inherited.size === 1
            ? 'The first epoch (grey, dashed) is'
            : `The first ${inherited.size} epochs (grey, dashed) are`}{' '}
          inherited from {inheritedFrom === null ? 'the parent run' : `run #${inheritedFrom}`}; this
          fork trained the rest.
        </p>
      )}
      <div className="grid-2">
        {groups.map((g) => (
          <div key={g.title} data-testid={`chart-${g.title}`} data-points={view.epochLogs.size}>
            <EChart label={`${g.title} per epoch`} option={g.option} height={240} />
          </div>
        ))}
      </div>
    </>
  );
}
