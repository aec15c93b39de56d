import { describe, expect, it } from 'vitest';
import { epochChartOption, epochLine } from './epochChart';

describe('epochChartOption', () => {
  it('draws lines over the epochs, the val_ twin dashed, missing epochs bridged', () => {
    const option = epochChartOption(
      'reward per epoch',
      [0, 1, 2],
      [
        epochLine('reward', 'reward', [0.2, null, 0.5]),
        epochLine('#2 val_reward', 'val_reward', [0.1, 0.3, 0.4]),
      ],
    );
    expect(option.xAxis).toMatchObject({ type: 'category', name: 'epoch', data: ['0', '1', '2'] });
    expect(option.series.map((s) => [s.name, s.connectNulls, s.lineStyle?.type])).toEqual([
      ['reward', true, undefined],
      ['#2 val_reward', true, 'dashed'],
    ]);
  });

  it('puts a long legend under the title, where it scrolls', () => {
    const beside = epochChartOption('reward', [0], []);
    const below = epochChartOption('reward', [0], [], { legend: 'below' });
    expect(beside.legend).toEqual({ top: 0, right: 0 });
    expect(below.legend).toMatchObject({ type: 'scroll' });
    expect(below.grid.top).toBeGreaterThan(beside.grid.top);
  });
});
