/**
 * A 17-skill agent catalog like one converted from a public Agent Skills
 * collection: every description a long paragraph, so together they are over
 * both the activation catalog token budget and the auto-candidate limit, with
 * neighbours that share vocabulary (a slide-deck skill and a theming skill, two
 * document formats, an API skill and a tool-building skill).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Spec {
  name: string;
  topic: string;
  words: string[];
  asks: string[];
}

const SPECS: Spec[] = [
  { name: 'slide-decks', topic: 'slide decks and presentations', words: ['slides', 'deck', 'presentation', 'speaker notes'], asks: ['Build a ten slide deck about our quarterly results?', 'Add speaker notes to every slide of this presentation?'] },
  { name: 'theme-palettes', topic: 'visual themes, colour palettes and fonts for decks and documents', words: ['theme', 'palette', 'colours', 'fonts', 'deck'], asks: ['Give this deck a calm blue colour palette and matching fonts?', 'Which theme colours suit a finance report?'] },
  { name: 'word-documents', topic: 'Word documents with tracked changes, comments and styles', words: ['docx', 'document', 'tracked changes', 'comments'], asks: ['Accept all tracked changes in this docx document?', 'Add a comment to the second paragraph of my document?'] },
  { name: 'pdf-toolkit', topic: 'PDF files: merging, splitting, filling forms and extracting text', words: ['pdf', 'merge', 'split', 'form', 'document'], asks: ['Merge these three PDF files into one document?', 'Fill in the fields of this PDF form?'] },
  { name: 'spreadsheets', topic: 'spreadsheets with formulas, pivot tables and charts', words: ['spreadsheet', 'xlsx', 'formula', 'pivot', 'chart'], asks: ['Write a formula that sums column B when column A says paid?', 'Build a pivot table of sales by region?'] },
  { name: 'api-client', topic: 'calling a REST API: authentication, pagination and errors', words: ['api', 'rest', 'endpoint', 'authentication', 'tool'], asks: ['Call the orders API endpoint and page through every result?', 'Why does this REST endpoint return 401 with my token?'] },
  { name: 'tool-builder', topic: 'building tools and connectors that wrap an API for an agent', words: ['tool', 'connector', 'api', 'schema'], asks: ['Build a connector tool that wraps our inventory API?', 'Write the input schema for a new search tool?'] },
  { name: 'release-notes', topic: 'release notes and changelogs from merged pull requests', words: ['release notes', 'changelog', 'version', 'pull requests'], asks: ['Draft release notes for version 2.4 from these pull requests?', 'Turn this changelog into a short announcement?'] },
  { name: 'brand-voice', topic: 'writing in the company brand voice and tone', words: ['brand', 'voice', 'tone', 'copy'], asks: ['Rewrite this paragraph in our brand voice?', 'Is the tone of this copy on brand?'] },
  { name: 'team-updates', topic: 'weekly team status updates and stand-up summaries', words: ['status update', 'team', 'weekly', 'stand-up'], asks: ['Summarise this week for the team status update?', 'Write my stand-up notes from these tickets?'] },
  { name: 'poster-studio', topic: 'posters and flyers with layout, imagery and print sizes', words: ['poster', 'flyer', 'print', 'layout'], asks: ['Lay out an A3 poster for the summer fair?', 'Make a flyer for the charity run?'] },
  { name: 'generative-art', topic: 'generative art and algorithmic sketches in code', words: ['generative', 'sketch', 'canvas', 'noise'], asks: ['Write a generative sketch of flowing noise lines?', 'Animate particles on a canvas with perlin noise?'] },
  { name: 'webapp-testing', topic: 'testing a web application in a browser with screenshots', words: ['web app', 'browser', 'test', 'screenshot'], asks: ['Test the sign-up form of my web app in a browser?', 'Take screenshots of the checkout page at three widths?'] },
  { name: 'skill-workshop', topic: 'writing and reviewing agent skills and their descriptions', words: ['skill', 'description', 'activation', 'agent'], asks: ['Review the description of my agent skill?', 'Write activation examples for this skill?'] },
  { name: 'meeting-notes', topic: 'meeting notes with decisions and action items', words: ['meeting', 'minutes', 'action items', 'decisions'], asks: ['Turn this transcript into meeting minutes with action items?', 'List the decisions made in this meeting?'] },
  { name: 'data-charts', topic: 'charts and plots from tabular data', words: ['chart', 'plot', 'graph', 'data'], asks: ['Plot monthly revenue as a line chart?', 'Which graph shows this data best?'] },
  { name: 'email-drafts', topic: 'emails: drafting, replying and following up', words: ['email', 'reply', 'follow-up', 'inbox'], asks: ['Draft a polite follow-up email to the supplier?', 'Reply to this email declining the meeting?'] },
];

/** The namespace of the fixture. */
export const FIXTURE_NAMESPACE = 'docs';

/** The package of one fixture skill: valid, with a long description and its own activation examples. */
function pkg(spec: Spec, index: number): Record<string, unknown> {
  const other = SPECS[(index + 1) % SPECS.length]!;
  const description =
    `Use this when a request is about ${spec.topic}. It covers ${spec.words.join(', ')}, ` +
    `including planning the work, choosing a structure, checking the result against what was asked and explaining the choices made. ` +
    `It also helps when the person only describes the outcome they want and the ${spec.words[0]} work is implied rather than named, ` +
    `and when an existing ${spec.words[0]} needs to be reviewed, corrected or extended without losing what is already there.`;
  return {
    display_name: spec.name
      .split('-')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' '),
    description,
    domains: ['productivity'],
    tags: spec.words.slice(0, 3).map((w) => w.replace(/[^a-z]+/g, '-')),
    planning_instructions: [`Work out what the request needs for ${spec.topic} before producing anything.`, 'Ask one question when a required input is missing.'],
    response_instructions: ['Say what was done and what was assumed.'],
    tool_hints: [],
    resources: [],
    activation_examples: { should_activate: spec.asks, should_not_activate: [other.asks[0]!] },
    change_reason: 'Fixture package',
  };
}

/** Writes the 17 packages as a workspace (`skills/packages/docs/<name>.json`) under `dir`; returns their identities. */
export async function writeCatalogFixture(dir: string): Promise<string[]> {
  const folder = join(dir, 'skills', 'packages', FIXTURE_NAMESPACE);
  await mkdir(folder, { recursive: true });
  await Promise.all(SPECS.map((spec, i) => writeFile(join(folder, `${spec.name}.json`), `${JSON.stringify(pkg(spec, i), null, 2)}\n`)));
  return SPECS.map((s) => `${FIXTURE_NAMESPACE}/${s.name}`).sort();
}
