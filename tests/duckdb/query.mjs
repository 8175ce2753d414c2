// query.mjs DIR - load a partitioned ktraj export with the DuckDB query that
// README.md documents and print one JSON line per table: its row count, the
// runs it saw and the events per kind, and the files DuckDB read.  Exit 1
// when DuckDB cannot read it.  A table with no rows has no files (the
// manifest says so); it counts 0.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const dir = process.argv[2];
if (!dir) { console.error('usage: node query.mjs DIR'); process.exit(2); }
const src = (table) =>
  `read_json('${dir}/${table}/*/*/*.ndjson.zst', format = 'newline_delimited', ` +
  `hive_partitioning = true)`;
const manifest = JSON.parse(readFileSync(`${dir}/_manifest.json`, 'utf8'));
const has = (table) => manifest.exports.some((e) => e.files.some((f) => f.table === table));

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const out = {};
for (const t of ['runs', 'events', 'bench', 'questions']) {
  if (!has(t)) { out[t] = { rows: 0, runs: 0 }; continue; }
  const r = await rows(`SELECT count(*) AS n, count(DISTINCT run) AS runs, ` +
    `count(DISTINCT filename) AS files FROM read_json('${dir}/${t}/*/*/*.ndjson.zst', ` +
    `format = 'newline_delimited', hive_partitioning = true, filename = true)`);
  out[t] = { rows: Number(r[0].n), runs: Number(r[0].runs), files: Number(r[0].files) };
}
// the latest row of each run (an incremental export adds one per export
// that added to the run)
out.runs_latest = Number((await rows(
  `SELECT count(*) AS n FROM (SELECT run, max(events) AS e FROM ${src('runs')} GROUP BY run)`))[0].n);
out.partitions = (await rows(
  `SELECT DISTINCT format, CAST(date AS VARCHAR) AS date FROM ${src('events')} ORDER BY 1, 2`));
out.kinds = Object.fromEntries((await rows(
  `SELECT kind, count(*) AS n FROM ${src('events')} GROUP BY kind ORDER BY kind`))
  .map((r) => [r.kind, Number(r.n)]));
out.first_bench = (await rows(
  `SELECT run, seq, time_ms, speedup, correct FROM ${src('bench')} ORDER BY run, seq LIMIT 1`))[0] ?? null;
console.log(JSON.stringify(out));
