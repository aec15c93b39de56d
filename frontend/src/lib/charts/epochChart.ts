/**
 * The chart of figures over epochs, as the run page and the compare page draw it: one
 * category axis of epochs, lines that bridge missing epochs, a figure's `val_` twin
 * dashed beside it. Each page names its lines; the layout is decided here only.
 */

export type EpochLine = {
  name: string;
  type: 'line';
  data: (number | null)[];
  connectNulls: boolean;
  showSymbol?: boolean;
  symbol?: string;
  color?: string;
  lineStyle?: { type: 'dashed' | 'dotted'; opacity?: number };
};

/** Whether a figure is a validation twin (`val_reward` beside `reward`). */
export const isValidation = (figure: string) => figure.startsWith('val_');

/** A figure's line over the chart's epochs: solid, or dashed for a `val_` figure. */
export function epochLine(name: string, figure: string, data: (number | null)[]): EpochLine {
  return {
    name,
    type: 'line',
    data,
    connectNulls: true,
    lineStyle: isValidation(figure) ? { type: 'dashed' } : undefined,
  };
}

/**
 * The ECharts option of lines over `epochs`. `legend`: `right` beside the title (a few
 * lines), `below` under it, scrolling (a line per run and figure).
 */
export function epochChartOption<L extends EpochLine>(
  title: string,
  epochs: readonly number[],
  series: L[],
  { legend = 'right' }: { legend?: 'right' | 'below' } = {},
) {
  return {
    animation: false,
    title: { text: title, left: 0, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    legend: legend === 'right' ? { top: 0, right: 0 } : { top: 30, type: 'scroll' },
    grid: { left: 44, right: 16, top: legend === 'right' ? 36 : 64, bottom: 30 },
    xAxis: {
      type: 'category',
      name: 'epoch',
      nameLocation: 'middle',
      nameGap: 22,
      data: epochs.map(String),
    },
    yAxis: { type: 'value', scale: true },
    series,
  };
}
