/* searcheval's HTML report, part 2: the sections, drawn from the data blob. */

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
                     title: `${SIGNIFICANCE.test} test against ${RUNS[BASELINE]}: p ${formatP(cell.p)}, ` +
                            `corrected ${formatP(cell.p_adjusted)}; change ${formatSigned(cell.delta)}; ` +
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
  if (cell) facts.push(` ${SIGNIFICANCE.test} test, ${RUNS[other]} against the baseline: p ${formatP(cell.p)}, ` +
                       `corrected ${formatP(cell.p_adjusted)} (${cell.significant ? "significant" : "not significant"}).`);
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

/* ---- one query: values, P-R curves, rankings side by side ---- */

const QUERY_STATE = {query: QUERIES[0], runs: new Set(RUNS.slice(0, 6).map((_, r) => r))};

function openQuery(query) {
  if (!QUERY_INDEX.has(query)) return;
  QUERY_STATE.query = query;
  drawQuery();
  document.getElementById("query").scrollIntoView();
}

function drawQuery() {
  const body = section("query");
  if (!QUERIES.length) {
    body.replaceChildren(el("p", {class: "note"}, "No query was evaluated."));
    return;
  }
  const q = QUERY_STATE.query;
  const options = QUERIES.map(id => ({value: id, label: queryText(id) ? `${id} \u2014 ${shortened(queryText(id), 60)}` : id}));
  const step = delta => openQuery(QUERIES[Math.min(QUERIES.length - 1, Math.max(0, QUERY_INDEX.get(q) + delta))]);
  const picks = el("div", {class: "run-picks", id: "ranking-runs"}, RUNS.map((name, r) => el("label", {},
    el("input", {type: "checkbox", value: r, checked: QUERY_STATE.runs.has(r), onchange: event => {
      if (event.target.checked) QUERY_STATE.runs.add(r); else QUERY_STATE.runs.delete(r);
      drawQuery();
    }}), " ", name)));
  const relevant = own(DATA.relevant, q) || 0;
  body.replaceChildren(
    el("div", {class: "controls"}, el("button", {onclick: () => step(-1), title: "previous query"}, "\u2190"),
       el("label", {}, "query ", selectBox("query-select", options, q, openQuery)),
       el("button", {onclick: () => step(1), title: "next query"}, "\u2192")),
    queryText(q) !== undefined ? el("div", {class: "query-text", id: "query-text"}, queryText(q)) : null,
    el("p", {class: "note"}, `${relevant} relevant document${relevant === 1 ? "" : "s"} (grade \u2265 ${DATA.relevance_level}). ` +
       `Each run's first ${DATA.depth} documents: relevant in green, judged non-relevant in grey, unjudged in yellow with ?. ` +
       "Hover a document to find it in the other runs; click it for its text."),
    el("div", {class: "chart-row"}, queryValues(q), queryCurves(q)),
    picks, rankings(q), el("div", {class: "doc-panel", id: "doc-panel", hidden: true}));
}

function queryValues(q) {
  const columns = [{label: "run", text: true, value: r => RUNS[r], cell: r => RUNS[r]}];
  PER_QUERY.forEach(j => columns.push({label: MEASURES[j].name, value: r => queryValue(r, j, q),
                                       cell: r => formatValue(MEASURES[j], queryValue(r, j, q))}));
  return el("div", {class: "wide"}, new SortableTable("query-values", columns, RUNS.map((_, r) => r)).table);
}

function queryCurves(q) {
  const series = RUNS.map((name, r) => {
    const curve = DATA.pr.per_query[r][QUERY_INDEX.get(q)];
    return {name: name, style: runStyle(r), points: curve && DATA.pr.recall.map((x, i) => [x, curve[i]])};
  });
  return lineChart(series, {id: "query-curves", width: 420, height: 280, xLabel: "recall",
                            yLabel: "interpolated precision", title: `precision-recall of query ${q}`});
}

function judgment(q, doc) {
  const grade = own(own(DATA.judgments, q), doc);
  if (grade === undefined) return {kind: "unjudged", label: "?", grade: null};
  if (grade >= DATA.relevance_level) return {kind: "rel", label: String(grade), grade: grade};
  return {kind: "nonrel", label: String(grade), grade: grade};
}

function rankings(q) {
  const holder = el("div", {class: "rankings", id: "rankings"});
  const firstMeasure = PER_QUERY.length ? PER_QUERY[0] : null;
  for (const r of [...QUERY_STATE.runs].sort((x, y) => x - y)) {
    const docs = own(DATA.rankings[r], q) || [];
    const value = firstMeasure === null ? "" : `${MEASURES[firstMeasure].name} ${formatValue(MEASURES[firstMeasure], queryValue(r, firstMeasure, q))}`;
    const list = el("ol", {}, docs.map((doc, i) => documentItem(q, doc, i + 1, holder)));
    if (!docs.length) list.append(el("li", {class: "note"}, "no document for this query"));
    holder.append(el("div", {class: DATA.docs ? "ranking with-text" : "ranking", "data-run": RUNS[r]},
      el("h3", {title: RUNS[r]}, RUNS[r], el("span", {class: "sub"}, value)), list));
  }
  return holder;
}

function documentItem(q, doc, rank, holder) {
  const judged = judgment(q, doc);
  const strong = judged.kind === "rel" && judged.grade > DATA.relevance_level ? " strong" : "";
  const text = own(DATA.docs, doc);
  const item = el("li", {class: `doc ${judged.kind}${strong}`, "data-doc": doc, "data-rank": rank,
                         title: judged.kind === "unjudged" ? "not judged" : `grade ${judged.grade}`},
    el("span", {class: "rank"}, rank), doc, el("span", {class: "grade"}, judged.label),
    text !== undefined ? el("span", {class: "snippet"}, shortened(text, 140)) : null);
  const mark = on => holder.querySelectorAll(".doc").forEach(node => {
    if (node.dataset.doc === doc) node.classList.toggle("same", on);
  });
  item.addEventListener("mouseenter", () => mark(true));
  item.addEventListener("mouseleave", () => mark(false));
  item.addEventListener("click", () => showDocument(q, doc));
  return item;
}

function showDocument(q, doc) {
  const panel = document.getElementById("doc-panel");
  const judged = judgment(q, doc);
  const ranks = RUNS.map((name, r) => [name, (own(DATA.rankings[r], q) || []).indexOf(doc)])
    .filter(entry => entry[1] >= 0).map(entry => `${entry[0]} at ${entry[1] + 1}`);
  const text = own(DATA.docs, doc);
  panel.hidden = false;
  panel.replaceChildren(el("strong", {}, doc), ` \u2014 ${judged.kind === "unjudged" ? "not judged" :
                        `grade ${judged.grade} (${judged.kind === "rel" ? "relevant" : "not relevant"})`}`,
    el("p", {class: "note"}, `In the first ${DATA.depth} of: ${ranks.join(", ")}`),
    text === undefined ? el("p", {class: "note"}, DATA.docs ? "no text for this document" : "give --docs to see the texts") :
      el("div", {class: "body-text", id: "doc-text"}, highlighted(text, queryText(q) || "")));
}

function highlighted(text, query) {
  const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || []));
  return text.split(/([\p{L}\p{N}]+)/u).map(part => words.has(part.toLowerCase()) ? el("mark", {}, part) : part);
}

/* ---- mean P-R curves ---- */

function drawCurves() {
  const hidden = new Set();
  const holder = el("div");
  const legend = el("ul", {class: "legend-list", id: "curve-legend"});
  const redraw = () => {
    holder.replaceChildren(lineChart(RUNS.map((name, r) => ({
      name: name, style: runStyle(r), hidden: hidden.has(r),
      points: DATA.pr.recall.map((x, i) => [x, DATA.pr.mean[r][i]])})),
      {id: "pr-chart", width: 620, height: 400, xLabel: "recall", yLabel: "interpolated precision",
       title: "interpolated precision at 11 recall levels, mean over queries"}));
    legend.replaceChildren(...RUNS.map((name, r) => el("li", {class: hidden.has(r) ? "off" : null, "data-run": name,
      onclick: () => { if (hidden.has(r)) hidden.delete(r); else hidden.add(r); redraw(); }},
      el("span", {class: "swatch", style: `border-top-color: ${runStyle(r).colour}; border-top-style: ${runStyle(r).dash ? "dashed" : "solid"}`}), name)));
  };
  redraw();
  section("curves").replaceChildren(el("div", {class: "chart-row"}, holder, legend),
    el("p", {class: "legend"}, "trec_eval's iprec_at_recall: the highest precision at or beyond each recall level, " +
       "averaged over each run's evaluated queries. Click a run to hide or show it."));
}

/* ---- settings and definitions ---- */

function drawSettings() {
  const s = DATA.settings;
  const facts = [["semantics", s.compat], ["engine", s.engine], ["tie rule", `${s.ties}: ${s.tie_rule}`],
    ["queries averaged", `missing=${s.missing}: ${s.query_policy}`],
    ["relevance level", `${s.relevance_level} (grade \u2265 level is relevant)`],
    ["judged only", s.judged_only ? "yes: unjudged documents dropped before measuring (shown in the rankings)" : "no"],
    ["rankings shown", `the first ${DATA.depth} documents of each query`], ["qrels", DATA.qrels],
    ["made by", DATA.generator]];
  if (s.num_docs) facts.push(["collection size (-N)", s.num_docs]);
  const runs = new SortableTable("runs-table", [
    {label: "run", text: true, value: r => RUNS[r], cell: r => RUNS[r]},
    {label: "tag", text: true, value: r => DATA.runs[r].tag, cell: r => DATA.runs[r].tag},
    {label: "file", text: true, value: r => DATA.runs[r].path, cell: r => DATA.runs[r].path},
    {label: "averaged", value: r => DATA.runs[r].averaged, cell: r => DATA.runs[r].averaged},
    {label: s.missing === "zero" ? "zero-filled" : "skipped", value: r => missingOf(r).length,
     cell: r => el("span", {title: missingOf(r).join(", ")}, missingOf(r).length)},
    {label: "ignored", value: r => DATA.runs[r].ignored.length,
     cell: r => el("span", {title: DATA.runs[r].ignored.join(", ")}, DATA.runs[r].ignored.length)},
    {label: "tied scores", text: true, value: r => DATA.runs[r].tied, cell: r => DATA.runs[r].tied,
     cellClass: () => "text long"}], RUNS.map((_, r) => r));
  const measures = new SortableTable("measures-table", [
    {label: "measure", text: true, value: m => m.name, cell: m => m.name},
    {label: "trec_eval", text: true, value: m => m.trec, cell: m => m.trec},
    {label: "over queries", text: true, value: m => m.how, cell: m => m.how},
    {label: "what it measures", text: true, value: m => m.about, cell: m => m.about, cellClass: () => "text long"}], MEASURES);
  const notes = DATA.notes.concat(...DATA.runs.map(run => run.notes.map(note => `${run.name}: ${note}`)),
                                  SIGNIFICANCE ? SIGNIFICANCE.notes : []);
  section("settings").replaceChildren(
    el("dl", {class: "settings"}, facts.map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)])),
    el("h3", {}, "Runs"), el("div", {class: "wide"}, runs.table),
    el("h3", {}, "Measures"), el("div", {class: "wide"}, measures.table),
    SIGNIFICANCE ? el("p", {}, `Significance: ${SIGNIFICANCE.test_about}; ${SIGNIFICANCE.correction}.`) : null,
    notes.length ? el("h3", {}, "Notes") : null,
    notes.length ? el("ul", {id: "notes"}, notes.map(note => el("li", {}, note))) : null);
}

function missingOf(r) {
  return DATA.settings.missing === "zero" ? DATA.runs[r].zero_filled : DATA.runs[r].skipped;
}

drawLeaderboard();
drawPerQuery();
drawDifferences();
drawQuery();
drawCurves();
drawSettings();
document.body.setAttribute("data-ready", "true");
