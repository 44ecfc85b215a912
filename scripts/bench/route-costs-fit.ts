// Fits src/codecs/route-costs.json to the peaks recorded in it: every recorded peak, with the
// table's safety margin added, must be at or under the estimate the planner computes for it from
// the table. Where one is not, the terms of the stage that priced it (its first, the row's own)
// are raised by what is missing: `fixedMiB`, or `floorMiB` for a call too small to reach its
// fixed part. Nothing is lowered here: a figure comes down by hand, with the measurement that
// allows it (docs/codecs.md). A raise changes other estimates (and the WebP encoder's choices),
// so after one the table is written and the process exits 3: run it again until it exits 0
// (`bench:codecs -- --write` does), since the planner reads the table once, when it loads.
// A peak measured past the route's pixel limit (the bench calls the codecs directly, so it
// measures sizes the service refuses) is dropped from the table: it prices nothing that runs.
//
//   node scripts/bench/route-costs-fit.ts
import { estimatesOf, raisesFor, type Raise } from "./route-costs-estimates.ts";
import { readRouteCosts, writeRouteCosts } from "./route-costs-file.ts";

const table = readRouteCosts();
const all = await estimatesOf(table.peaks);
const refused = all.filter((e) => !e.admitted);
for (const e of refused) console.log(`dropped ${e.peak.case} @ ${e.peak.megapixels} MP: past its route's pixel limit (${e.row}), the service refuses it`);
table.peaks = table.peaks.filter((p) => !refused.some((e) => e.peak === p));
const estimates = all.filter((e) => e.admitted);
const raises: Raise[] = raisesFor(table, estimates);
// A term set with a recorded peak behind it is no longer provisional.
const measured = new Set(estimates.flatMap((e) => e.keys));
let changed = refused.length > 0;
for (const [key, terms] of Object.entries(table.terms)) {
  if (terms.provisional !== undefined && measured.has(key)) {
    delete terms.provisional;
    changed = true;
  }
}
for (const raise of raises) {
  const terms = table.terms[raise.key]!;
  const before = terms[raise.field] ?? 0;
  terms[raise.field] = Math.ceil((before + raise.miB) * 10) / 10;
  console.log(`raised ${raise.key} ${raise.field} ${before} -> ${terms[raise.field]} MiB (${raise.case} @ ${raise.megapixels} MP: peak ${raise.peakMiB.toFixed(1)} MiB, estimate ${raise.estimateMiB.toFixed(1)}, margin ${table.margin})`);
  changed = true;
}
if (changed) writeRouteCosts(table);
process.exitCode = raises.length > 0 ? 3 : 0;
