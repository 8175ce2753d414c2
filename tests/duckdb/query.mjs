// query.mjs DIR - load a partitioned ktraj export with the DuckDB query that
// README.md documents and print one JSON line per table: its row count, the
// runs it saw and the events per kind.  Exit 1 when DuckDB cannot read it.
import { DuckDBInstance } from '@duckdb/node-api';

const dir = process.argv[2];
if (!dir) { console.error('usage: node query.mjs DIR'); process.exit(2); }
const src = (table) =>
  `read_json('${dir}/${table}/*/*.ndjson.zst', format = 'newline_delimited', ` +
  `hive_partitioning = true, hive_types = {'run': 'VARCHAR'})`;

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const out = {};
for (const t of ['runs', 'events', 'bench', 'questions']) {
  const r = await rows(`SELECT count(*) AS n, count(DISTINCT run) AS runs FROM ${src(t)}`);
  out[t] = { rows: Number(r[0].n), runs: Number(r[0].runs) };
}
out.kinds = Object.fromEntries((await rows(
  `SELECT kind, count(*) AS n FROM ${src('events')} GROUP BY kind ORDER BY kind`))
  .map((r) => [r.kind, Number(r.n)]));
out.first_bench = (await rows(
  `SELECT run, seq, time_ms, speedup, correct FROM ${src('bench')} ORDER BY run, seq LIMIT 1`))[0] ?? null;
console.log(JSON.stringify(out));
