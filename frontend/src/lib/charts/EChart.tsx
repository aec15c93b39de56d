import { BarChart, CustomChart, LineChart } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

echarts.use([
  LineChart,
  BarChart,
  CustomChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  TitleComponent,
  CanvasRenderer,
]);

export type EChartOption = echarts.EChartsCoreOption;

export type EChartHandle = {
  /** The chart as a PNG data URL (white background). */
  toPng: () => string | null;
};

/** An ECharts chart that follows `option` (merged updates) and its container's size. */
export const EChart = forwardRef<
  EChartHandle,
  { option: EChartOption; height?: number; label: string }
>(function EChart({ option, height = 280, label }, ref) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    if (!host.current) return;
    const instance = echarts.init(host.current, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(host.current);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true, lazyUpdate: true });
  }, [option]);

  useImperativeHandle(ref, () => ({
    toPng: () =>
      chart.current?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' }) ?? null,
  }));

  return <div ref={host} role="img" aria-label={label} style={{ width: '100%', height }} />;
});
