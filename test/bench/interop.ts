/**
 * Bench suite `interop`: `skillbench import` of a 1 MB Agent Skills folder
 * (a SKILL.md with a 200 KB body, twelve reference files, scripts and a font)
 * into a workspace — read, converted, validated and written durably — against
 * reading the same files with `readFile`. The issue's figure: under a second.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSkills } from '../../core/interop/files';
import { compare, type BenchRow } from './harness';

/** A section of realistic SKILL.md prose with a table and code blocks (one holding a <script> tag). */
function section(i: number): string {
  return [
    `## Step ${i}: configure the ${['exporter', 'importer', 'webhook', 'scheduler', 'renderer'][i % 5]}`,
    '',
    `Check the inputs before step ${i}. Keep each change small and say what it does for the user. `.repeat(6),
    '',
    '| option | default | notes |',
    '| --- | --- | --- |',
    `| \`retries\` | ${i % 4} | retried with backoff |`,
    `| \`timeout_ms\` | ${1000 + i} | per attempt |`,
    '',
    '```html',
    `<script src="https://cdn.example.org/lib-${i}.js"></script>`,
    '```',
    '',
    '```python',
    `def step_${i}(client):`,
    `    return client.run(${i})`,
    '```',
    '',
  ].join('\n');
}

async function makeFolder(dir: string): Promise<number> {
  await mkdir(join(dir, 'references'), { recursive: true });
  await mkdir(join(dir, 'scripts'), { recursive: true });
  let body = '';
  for (let i = 0; body.length < 200_000; i++) body += section(i);
  const refs = Array.from({ length: 12 }, (_, r) => `references/topic-${r}.md`);
  await writeFile(join(dir, 'SKILL.md'), `---\nname: big-skill\ndescription: Use this when a request needs the big skill.\nlicense: MIT\n---\n\n# Big Skill\n\n${refs.map((r) => `See ${r}.`).join(' ')}\n\n${body}`);
  for (const [r, path] of refs.entries()) {
    let text = `# Topic ${r}\n\n`;
    for (let i = 0; text.length < 62_000; i++) text += section(r * 100 + i);
    await writeFile(join(dir, path), text);
  }
  for (let s = 0; s < 4; s++) await writeFile(join(dir, 'scripts', `tool_${s}.py`), `print(${s})\n`.repeat(200));
  await writeFile(join(dir, 'font.ttf'), new Uint8Array(20_000).map((_, i) => (i * 7) & 0xff));
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else total += (await readFile(join(d, e.name))).length;
    }
  };
  await walk(dir);
  return total;
}

/** Reads every file of `dir` (the baseline: the bytes an import must at least read). */
async function readAll(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += (await readFile(join(e.parentPath, e.name))).length;
  }
  return total;
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'skillbench-bench-interop-'));
  try {
    const folder = join(root, 'big-skill');
    const bytes = await makeFolder(folder);
    const ws = join(root, 'ws');
    await mkdir(ws);
    let n = 0;
    let resources = 0;
    const result = await compare(
      async () => {
        // A fresh namespace each time, so every round writes its package.
        const report = await importSkills([folder], { namespace: `bench-${n++}`, workspace: ws });
        resources = report.imported[0]!.resources;
      },
      () => readAll(folder),
      { rounds: 9, batch: 1, warmup: 2 },
    );
    return [
      {
        suite: 'interop',
        name: `skillbench import of a ${(bytes / 1e6).toFixed(2)} MB SKILL.md folder (read, convert, validate, durable write)`,
        medianMs: result.subjectMs,
        baselineName: 'reading the same files with readFile',
        baselineMs: result.baselineMs,
        ratio: result.subjectMs / result.baselineMs,
        target: '< 1000 ms',
        met: result.subjectMs < 1000,
        note: `${resources} resources in the package`,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
