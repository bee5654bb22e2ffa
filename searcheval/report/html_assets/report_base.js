"use strict";
/* searcheval's HTML report, part 1: DOM helpers, sortable tables and SVG charts.
   Every text from the data goes in through textContent or an attribute, never as HTML,
   so a document text holding markup shows as text. */

const SVG_NS = "http://www.w3.org/2000/svg"; // the SVG namespace name, not a resource
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
const DASHES = ["", "7 3", "2 2"]; // 10 colours x 3 line styles: no two of 30 runs alike

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "onclick" || key === "onchange" || key === "oninput") {
      node.addEventListener(key.slice(2), value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svgEl(tag, attributes, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function runStyle(index) {
  return {colour: PALETTE[index % PALETTE.length],
          dash: DASHES[Math.floor(index / PALETTE.length) % DASHES.length]};
}

function formatValue(measure, value) {
  if (value === null || value === undefined) return "\u2013";
  if (measure.count || (measure.found_only && Number.isInteger(value))) return String(value);
  return value.toFixed(4);
}

function formatSigned(value) {
  if (value === null || value === undefined) return "\u2013";
  return (value > 0 ? "+" : value < 0 ? "\u2212" : "") + Math.abs(value).toFixed(4);
}

// p-values as every other output writes them (searcheval/analysis/p_values.py):
// "p = 0.0152", below 0.0001 "p < 0.0001" (four decimals would print 0.0000)
function pPhrase(name, p) {
  if (p === null || p === undefined) return `${name} not computed`;
  return p < 0.0001 ? `${name} < 0.0001` : `${name} = ${p.toFixed(4)}`;
}

function selectBox(id, options, chosen, onchange) {
  const box = el("select", {id: id, onchange: () => onchange(box.value)});
  for (const option of options) {
    if (option.group) {
      const group = el("optgroup", {label: option.group});
      for (const inner of option.options) group.append(el("option", {value: inner.value}, inner.label));
      box.append(group);
    } else {
      box.append(el("option", {value: option.value}, option.label));
    }
  }
  box.value = String(chosen);
  return box;
}

/* A table sorted by clicking a column's header (again: the other way round). columns:
   {label, value(row) -> sort key, cell(row) -> node or text, text: left aligned}. */
class SortableTable {
  constructor(id, columns, rows, rowAttributes) {
    this.columns = columns;
    this.rows = rows;
    this.rowAttributes = rowAttributes || (() => ({}));
    this.keep = () => true;
    this.sortColumn = -1;
    this.direction = 1;
    this.body = el("tbody");
    this.headers = columns.map((column, i) => el("th", {
      class: column.text ? "text" : null, "data-sort": "none", title: column.title || null,
      onclick: () => this.sortBy(i)}, column.label));
    this.table = el("table", {class: "data", id: id}, el("thead", {}, el("tr", {}, this.headers)),
                    this.body);
    this.count = el("p", {class: "note", id: id + "-count"});
    this.render();
  }

  sortBy(i) {
    this.direction = this.sortColumn === i ? -this.direction : (this.columns[i].text ? 1 : -1);
    this.sortColumn = i;
    this.headers.forEach((th, j) => th.setAttribute("data-sort", j !== i ? "none" :
                                                    this.direction > 0 ? "asc" : "desc"));
    this.render();
  }

  filter(keep) {
    this.keep = keep;
    this.render();
  }

  render() {
    let rows = this.rows.filter(this.keep);
    if (this.sortColumn >= 0) {
      const value = this.columns[this.sortColumn].value;
      const direction = this.direction;
      rows = rows.map((row, i) => [value(row), i, row]).sort((a, b) => {
        const missingA = a[0] === null || a[0] === undefined;
        const missingB = b[0] === null || b[0] === undefined;
        if (missingA || missingB) return missingA - missingB || a[1] - b[1]; // blanks last
        if (a[0] < b[0]) return -direction;
        if (a[0] > b[0]) return direction;
        return a[1] - b[1]; // stable
      }).map(entry => entry[2]);
    }
    this.body.replaceChildren(...rows.map(row => el("tr", this.rowAttributes(row),
      this.columns.map(column => el("td", {class: column.cellClass ? column.cellClass(row) :
                                                  column.text ? "text" : null},
                                        column.cell(row))))));
    this.count.textContent = rows.length === this.rows.length ? `${rows.length} rows` :
      `showing ${rows.length} of ${this.rows.length} rows`;
  }
}

/* Natural order of ids, as searcheval sorts queries: digit runs compare as numbers. */
function naturalCompare(a, b) {
  const split = text => String(text).split(/(\d+)/).map((part, i) => i % 2 ? Number(part) : part);
  const x = split(a), y = split(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] < y[i]) return -1;
    if (x[i] > y[i]) return 1;
  }
  return x.length - y.length;
}

/* Lines on [0, 1] x [0, 1]: series {name, points: [[x, y]...], style, hidden}. */
function lineChart(series, options) {
  const width = options.width || 520, height = options.height || 340;
  const left = 48, right = 14, top = 14, bottom = 40;
  const x = v => left + v * (width - left - right);
  const y = v => height - bottom - v * (height - top - bottom);
  const chart = svgEl("svg", {class: "chart", id: options.id, width: width, height: height,
                              viewBox: `0 0 ${width} ${height}`, role: "img",
                              "aria-label": options.title});
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    chart.append(svgEl("line", {class: "grid", x1: x(0), x2: x(1), y1: y(v), y2: y(v)}),
                 svgEl("line", {class: "grid", x1: x(v), x2: x(v), y1: y(0), y2: y(1)}),
                 svgEl("text", {x: left - 6, y: y(v) + 4, "text-anchor": "end"}, v.toFixed(1)),
                 svgEl("text", {x: x(v), y: height - bottom + 16, "text-anchor": "middle"}, v.toFixed(1)));
  }
  chart.append(svgEl("line", {class: "axis", x1: x(0), x2: x(1), y1: y(0), y2: y(0)}),
               svgEl("line", {class: "axis", x1: x(0), x2: x(0), y1: y(0), y2: y(1)}),
               svgEl("text", {x: x(0.5), y: height - 6, "text-anchor": "middle"}, options.xLabel),
               svgEl("text", {x: 12, y: y(0.5), "text-anchor": "middle",
                              transform: `rotate(-90 12 ${y(0.5)})`}, options.yLabel));
  for (const line of series) {
    if (line.hidden || !line.points) continue;
    const group = svgEl("g", {class: "series", "data-run": line.name});
    group.append(svgEl("polyline", {fill: "none", stroke: line.style.colour, "stroke-width": 2,
                                    "stroke-dasharray": line.style.dash || null,
                                    points: line.points.map(p => `${x(p[0])},${y(p[1])}`).join(" ")}));
    for (const p of line.points) {
      group.append(svgEl("circle", {cx: x(p[0]), cy: y(p[1]), r: 2.5, fill: line.style.colour},
                         svgEl("title", {}, `${line.name}: recall ${p[0].toFixed(1)}, precision ${p[1].toFixed(4)}`)));
    }
    chart.append(group);
  }
  return chart;
}

/* One bar per item (sorted by the caller): {label, value}; positive up, negative down. */
function barChart(items, options) {
  const width = Math.max(options.width || 720, Math.min(1400, items.length * 6 + 80));
  const height = options.height || 260;
  const left = 56, right = 10, top = 12, bottom = 24;
  const largest = Math.max(1e-9, ...items.map(item => Math.abs(item.value)));
  const y = v => top + (height - top - bottom) * (1 - (v + largest) / (2 * largest));
  const step = (width - left - right) / Math.max(1, items.length);
  const chart = svgEl("svg", {class: "chart", id: options.id, width: width, height: height,
                              viewBox: `0 0 ${width} ${height}`, role: "img",
                              "aria-label": options.title});
  for (const v of [-largest, -largest / 2, 0, largest / 2, largest]) {
    chart.append(svgEl("line", {class: v === 0 ? "axis" : "grid", x1: left, x2: width - right, y1: y(v), y2: y(v)}),
                 svgEl("text", {x: left - 6, y: y(v) + 4, "text-anchor": "end"}, formatSigned(v)));
  }
  items.forEach((item, i) => {
    const top_ = Math.min(y(item.value), y(0)), size = Math.abs(y(item.value) - y(0));
    const colour = item.value > 0 ? "var(--up)" : item.value < 0 ? "var(--down)" : "var(--same)";
    const bar = svgEl("rect", {x: left + i * step + step * 0.1, width: Math.max(1, step * 0.8),
                               y: top_, height: Math.max(size, item.value === 0 ? 1 : 0),
                               style: `fill: ${colour}`, class: "bar", "data-query": item.label},
                      svgEl("title", {}, `${item.label}: ${formatSigned(item.value)}`));
    if (options.onclick) bar.addEventListener("click", () => options.onclick(item.label));
    chart.append(bar);
  });
  chart.append(svgEl("text", {x: left + (width - left - right) / 2, y: height - 6,
                              "text-anchor": "middle"}, options.xLabel));
  return chart;
}
