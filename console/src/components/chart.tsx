/**
 * A uPlot time-series chart that follows its container's width. The chart is drawn on a canvas, so the wrapper is
 * an image whose label says what it shows and its totals; the figures are also on the page as text.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartProps {
  /** What the chart shows, with its totals (the image's accessible name). */
  label: string;
  /** The series after x; a new array re-creates the chart, so pages keep it stable. */
  series: uPlot.Series[];
  /** The unit of the y axis, e.g. `ms`. */
  unit?: string;
  data: uPlot.AlignedData;
  height?: number;
}

const AXIS = { stroke: '#444', grid: { stroke: '#e4e4e4' }, ticks: { stroke: '#e4e4e4' } };

export function Chart({ label, series, unit, data, height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(data);
  latest.current = data;

  useEffect(() => {
    const el = box.current!;
    let width = el.clientWidth;
    const u = new uPlot(
      {
        width,
        height,
        series: [{}, ...series],
        axes: [AXIS, { ...AXIS, size: 60, values: (_u, ticks) => ticks.map((v) => (unit ? `${v} ${unit}` : `${v}`)) }],
        // NB: from zero, with a tenth of headroom so the highest point is not on the frame
        scales: { y: { range: (_u, min, max) => [0, Math.max(max, min, 1) * 1.1] } },
        cursor: { drag: { x: false, y: false } },
      },
      latest.current,
      el,
    );
    plot.current = u;
    // NB: only a change of width re-sizes: the legend's own growth would otherwise loop the observer
    const observer = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      u.setSize({ width, height });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [series, unit, height]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return (
    <div class="chart" role="img" aria-label={label}>
      <div ref={box} />
    </div>
  );
}
