import type { DailySpend } from "./usage-query";

// Credits spent per day over the last 30 days as an inline SVG bar chart: no script, no
// library. Each bar carries a <title> (hover and screen readers), and the same numbers are
// available as a table under a disclosure for anyone who cannot read the picture.

const WIDTH = 600;
const HEIGHT = 200;
const PAD = { top: 12, right: 8, bottom: 24 };
/** The largest size the axis labels are drawn at (phones: the chart shrinks, its text does not), and a digit's width at it. */
const LABEL_PX = 22;
const DIGIT_WIDTH = 0.62 * LABEL_PX;

/** A round ceiling for the y axis: 1, 2, 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 5) return 5;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

export function SpendChart(props: { days: DailySpend[] }) {
  const { days } = props;
  const total = days.reduce((sum, day) => sum + day.credits, 0);
  const top = niceMax(Math.max(0, ...days.map((day) => day.credits)));
  // Room for the longest y label at the phone size, so it is never clipped at the left edge.
  const left = 10 + Math.ceil(String(top).length * DIGIT_WIDTH);
  const plotWidth = WIDTH - left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / days.length;
  const y = (credits: number) => PAD.top + plotHeight - (credits / top) * plotHeight;
  const first = days[0]?.day ?? "";
  const last = days[days.length - 1]?.day ?? "";
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="spend-title spend-desc" data-total={String(total)}>
        <title id="spend-title">Credits spent per day, last 30 days</title>
        <desc id="spend-desc">{`${total} credits from ${first} to ${last} (UTC days).`}</desc>
        <line class="axis" x1={left} y1={y(0)} x2={WIDTH - PAD.right} y2={y(0)} />
        <line class="axis" x1={left} y1={y(top)} x2={WIDTH - PAD.right} y2={y(top)} stroke-dasharray="4 4" />
        <text x={left - 6} y={y(top) + 4} text-anchor="end">{String(top)}</text>
        <text x={left - 6} y={y(0) + 4} text-anchor="end">0</text>
        {days.map((day, i) => {
          const height = y(0) - y(day.credits);
          return (
            <rect class="bar-rect" data-day={day.day} data-credits={String(day.credits)}
              x={(left + i * slot + slot * 0.15).toFixed(1)} y={y(day.credits).toFixed(1)}
              width={(slot * 0.7).toFixed(1)} height={Math.max(0, height).toFixed(1)}>
              <title>{`${day.day}: ${day.credits} credits`}</title>
            </rect>
          );
        })}
        {days.map((day, i) =>
          (days.length - 1 - i) % 7 === 0 ? (
            // The last label ends at the right edge so it is never clipped.
            i === days.length - 1
              ? <text x={WIDTH - PAD.right} y={HEIGHT - 6} text-anchor="end">{day.day.slice(5)}</text>
              : <text x={(left + i * slot + slot / 2).toFixed(1)} y={HEIGHT - 6} text-anchor="middle">{day.day.slice(5)}</text>
          ) : null,
        )}
      </svg>
      <figcaption class="muted">{`${total} credits spent in the last 30 days.`}</figcaption>
      <details>
        <summary>Show the numbers</summary>
        <div class="table-wrap" tabindex={0} role="region" aria-label="Credits per day">
          <table>
            <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Credits</th></tr></thead>
            <tbody>
              {days.map((day) => (
                <tr><td>{day.day}</td><td class="num">{String(day.credits)}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
