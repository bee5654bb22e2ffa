/* searcheval's HTML report, part 3: one query's rankings, the P-R curves, the settings,
   and the start (after parts 1 and 2). */

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
  // the panel opens under every ranking, often below the window: without this the click
  // seemed to do nothing. "nearest" leaves a panel already in view where it is, and puts
  // the top of one taller than the window at the window's top.
  panel.scrollIntoView({block: "nearest"});
}

// Lucene's English stop words and the words questions start with: not worth marking
const UNMARKED = new Set(("a an and are as at be but by for if in into is it no not of on or such that the " +
  "their then there these they this to was will with what which who whom how why when where do does " +
  "has have been can any from").split(" "));

function highlighted(text, query) {
  const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || []).filter(word => !UNMARKED.has(word)));
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
