/* searcheval's HTML report, part 2: the data, the leaderboard, the per-query tables and
   the differences between two runs. */

const DATA = JSON.parse(document.getElementById("report-data").textContent);
const RUNS = DATA.runs.map(run => run.name);
const MEASURES = DATA.measures;
const PER_QUERY = MEASURES.map((m, j) => j).filter(j => MEASURES[j].per_query);
const QUERIES = DATA.queries;
const QUERY_INDEX = new Map(QUERIES.map((q, i) => [q, i]));
const SIGNIFICANCE = DATA.significance;
const BASELINE = SIGNIFICANCE ? SIGNIFICANCE.baseline : null;

function own(object, key) { // an id such as "constructor" is data, not Object's own
  return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function section(id) {
  return document.querySelector(`#${id} .body`);
}

function queryText(query) {
  return own(DATA.query_texts, query);
}

function shortened(text, size) {
  return text.length > size ? text.slice(0, size - 1) + "\u2026" : text;
}

function queryValue(run, measure, query) {
  const values = DATA.per_query[run][measure];
  return values.length ? values[QUERY_INDEX.get(query)] : null;
}

function queryLink(query) {
  return el("a", {class: "query-link", "data-query": query, href: "#query",
                  onclick: event => { event.preventDefault(); openQuery(query); }}, query);
}

function queryColumns() {
  const columns = [{label: "query", text: true, value: q => QUERY_INDEX.get(q), cell: queryLink}];
  if (DATA.query_texts) {
    columns.push({label: "text", text: true, value: q => queryText(q) || "",
                  cell: q => shortened(queryText(q) || "", 90),
                  cellClass: () => "text long"});
  }
  return columns;
}

function matchesFilter(text) {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return () => true;
  return q => q.toLowerCase().includes(wanted) || (queryText(q) || "").toLowerCase().includes(wanted);
}

/* ---- leaderboard ---- */

function significanceMark(run, measure) {
  const cell = SIGNIFICANCE && SIGNIFICANCE.cells[run][measure];
  if (!cell) return null;
  const direction = cell.significant && cell.delta > 0 ? "up" : cell.significant && cell.delta < 0 ? "down" : null;
  return el("span", {class: direction ? `mark ${direction}` : "mark", "data-significant": cell.significant,
                     title: `${SIGNIFICANCE.test} test against ${RUNS[BASELINE]}: ${pPhrase("p", cell.p)}, ` +
                            `${pPhrase("corrected p", cell.p_adjusted)}; change ${formatSigned(cell.delta)}; ` +
                            `better on ${cell.wins}, same on ${cell.ties}, worse on ${cell.losses} queries`},
            direction === "up" ? "\u25B2" : direction === "down" ? "\u25BC" : "");
}

function summaryCell(run, measure) {
  const value = DATA.summary[run][measure];
  const interval = DATA.intervals[run][measure];
  return [el("span", {class: "value", "data-value": value === null ? "" : String(value)},
             formatValue(MEASURES[measure], value)),
          significanceMark(run, measure),
          interval ? el("span", {class: "ci"}, `[${interval[0].toFixed(4)}, ${interval[1].toFixed(4)}]`) : null];
}

function drawLeaderboard() {
  const best = MEASURES.map((m, j) => m.higher_better && !m.count ?
    Math.max(...DATA.summary.map(row => row[j] === null ? -Infinity : row[j])) : null);
  const columns = [{label: "run", text: true, value: r => RUNS[r],
                    cell: r => [RUNS[r], r === BASELINE ? el("span", {class: "note"}, " (baseline)") : null]}];
  MEASURES.forEach((m, j) => columns.push({
    label: m.name, title: `${m.name}: ${m.about} (${m.how})`, value: r => DATA.summary[r][j],
    cell: r => summaryCell(r, j),
    cellClass: r => best[j] !== null && DATA.summary[r][j] === best[j] ? "best" : null}));
  const table = new SortableTable("leaderboard-table", columns, RUNS.map((_, r) => r),
    r => ({"data-run": RUNS[r], class: r === BASELINE ? "baseline" : null}));
  const legend = [el("p", {class: "legend"}, `Below each value: its ${DATA.interval_about}; ` +
                     "none for sums (counts such as NumRet). Best mean in bold. Click a header to sort.")];
  if (SIGNIFICANCE) {
    legend.push(el("p", {class: "legend", id: "significance-legend"},
      `\u25B2 / \u25BC: significantly better / worse than the baseline ${RUNS[BASELINE]} on ` +
      `${SIGNIFICANCE.queries} paired queries: ${SIGNIFICANCE.test_about}; ${SIGNIFICANCE.correction}. ` +
      "Hover a value for its p-value."));
  } else {
    legend.push(el("p", {class: "legend"}, "No significance tests: give --baseline RUN to test every run against it."));
  }
  section("leaderboard").replaceChildren(el("div", {class: "wide"}, table.table), ...legend);
}

/* ---- per-query table ---- */

function perQueryTable(view) {
  const [kind, index] = [view[0], Number(view.slice(2))];
  const columns = queryColumns();
  if (kind === "m") {
    const measure = MEASURES[index];
    RUNS.forEach((name, r) => columns.push({label: name, value: q => queryValue(r, index, q),
                                            cell: q => formatValue(measure, queryValue(r, index, q))}));
  } else {
    PER_QUERY.forEach(j => columns.push({label: MEASURES[j].name, value: q => queryValue(index, j, q),
                                         cell: q => formatValue(MEASURES[j], queryValue(index, j, q))}));
  }
  return new SortableTable("per-query-table", columns, QUERIES, q => ({"data-query": q}));
}

function drawPerQuery() {
  if (!PER_QUERY.length) {
    section("per-query").replaceChildren(el("p", {class: "note"}, "No measure with per-query values."));
    return;
  }
  const holder = el("div", {class: "scroll"});
  let table = null;
  const filter = el("input", {type: "search", id: "per-query-filter", placeholder: "query id or words",
                              oninput: () => table.filter(matchesFilter(filter.value))});
  const show = view => {
    table = perQueryTable(view);
    table.filter(matchesFilter(filter.value));
    holder.replaceChildren(table.table);
    count.replaceChildren(table.count);
  };
  const views = [{group: "one measure, every run", options: PER_QUERY.map(j => ({value: `m:${j}`, label: MEASURES[j].name}))},
                 {group: "one run, every measure", options: RUNS.map((name, r) => ({value: `r:${r}`, label: name}))}];
  const count = el("div");
  section("per-query").replaceChildren(
    el("div", {class: "controls"}, el("label", {}, "show ", selectBox("per-query-view", views, `m:${PER_QUERY[0]}`, show)),
       el("label", {}, "filter ", filter)),
    holder, count);
  show(`m:${PER_QUERY[0]}`);
}

/* ---- differences between two runs ---- */

function drawDifferences() {
  const body = section("differences");
  if (!PER_QUERY.length || RUNS.length < 2) {
    body.replaceChildren(el("p", {class: "note"}, "Differences need two runs and a measure with per-query values."));
    return;
  }
  const first = BASELINE === null ? 0 : BASELINE;
  const state = {a: first, b: first === 0 ? 1 : 0, measure: PER_QUERY[0]};
  const out = el("div");
  const redraw = () => out.replaceChildren(...differences(state.a, state.b, state.measure));
  const runOptions = RUNS.map((name, r) => ({value: r, label: name}));
  body.replaceChildren(el("div", {class: "controls"},
    el("label", {}, "run A ", selectBox("diff-a", runOptions, state.a, v => { state.a = Number(v); redraw(); })),
    el("label", {}, "run B ", selectBox("diff-b", runOptions, state.b, v => { state.b = Number(v); redraw(); })),
    el("label", {}, "measure ", selectBox("diff-measure", PER_QUERY.map(j => ({value: j, label: MEASURES[j].name})),
                                          state.measure, v => { state.measure = Number(v); redraw(); }))), out);
  redraw();
}

function differences(a, b, measure) {
  const m = MEASURES[measure];
  const rows = QUERIES.filter(q => queryValue(a, measure, q) !== null && queryValue(b, measure, q) !== null)
    .map(q => ({query: q, a: queryValue(a, measure, q), b: queryValue(b, measure, q)}));
  rows.forEach(row => { row.diff = row.b - row.a; });
  const better = rows.filter(row => row.diff > 0).length, worse = rows.filter(row => row.diff < 0).length;
  const mean = rows.length ? rows.reduce((sum, row) => sum + row.diff, 0) / rows.length : 0;
  const facts = [`${m.name}, ${RUNS[b]} \u2212 ${RUNS[a]}: better on ${better}, same on ${rows.length - better - worse}, ` +
                 `worse on ${worse} of ${rows.length} queries; mean difference ${formatSigned(mean)}.`];
  const other = a === BASELINE ? b : b === BASELINE ? a : null;
  const cell = other !== null && SIGNIFICANCE ? SIGNIFICANCE.cells[other][measure] : null;
  if (cell) facts.push(` ${SIGNIFICANCE.test} test, ${RUNS[other]} against the baseline: ${pPhrase("p", cell.p)}, ` +
                       `${pPhrase("corrected p", cell.p_adjusted)} (${cell.significant ? "significant" : "not significant"}).`);
  const sorted = rows.slice().sort((x, y) => y.diff - x.diff || naturalCompare(x.query, y.query));
  const chart = barChart(sorted.map(row => ({label: row.query, value: row.diff})),
                         {id: "diff-chart", title: facts[0], xLabel: "queries, sorted by difference (click a bar: its rankings)",
                          onclick: openQuery});
  const table = new SortableTable("diff-table", [
    {label: "query", text: true, value: row => QUERY_INDEX.get(row.query), cell: row => queryLink(row.query)},
    {label: `A: ${RUNS[a]}`, value: row => row.a, cell: row => formatValue(m, row.a)},
    {label: `B: ${RUNS[b]}`, value: row => row.b, cell: row => formatValue(m, row.b)},
    {label: "B \u2212 A", value: row => row.diff, cell: row => formatSigned(row.diff),
     cellClass: row => row.diff > 0 ? "positive" : row.diff < 0 ? "negative" : null}],
    rows, row => ({"data-query": row.query}));
  return [el("p", {id: "diff-summary"}, facts.join("")), el("div", {class: "wide"}, chart),
          el("div", {class: "scroll"}, table.table), table.count];
}
