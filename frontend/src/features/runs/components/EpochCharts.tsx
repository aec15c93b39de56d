import { useMemo } from 'react';
import { EChart } from '@/lib/charts/EChart';
import { curveGroups, epochCurves, lineOption, type RunView } from '../model/runView';

/** Every logged figure over epochs, one chart per figure with its validation twin. */
export function EpochCharts({ view }: { view: RunView }) {
  const groups = useMemo(() => {
    const curves = epochCurves(view);
    return curveGroups(curves).map((g) => ({
      ...g,
      option: lineOption(g.title, curves.epochs, g.series),
    }));
  }, [view.epochLogs]); // eslint-disable-line react-hooks/exhaustive-deps -- only epoch logs matter
  if (groups.length === 0)
    return <p className="note">The first epoch's figures appear here when it ends.</p>;
  return (
    <div className="grid-2">
      {groups.map((g) => (
        <div key={g.title} data-testid={`chart-${g.title}`} data-points={view.epochLogs.size}>
          <EChart label={`${g.title} per epoch`} option={g.option} height={240} />
        </div>
      ))}
    </div>
  );
}
