/** The evaluation commands: start and list runs, run, filter, browse the matrix and export reports. */
import type { KeymapContribution } from '../shell/keymap';

export const evalsKeymap: KeymapContribution = {
  id: 'evals',
  scopes: { evals: 'Evaluation' },
  entries: [
    { command: 'evals.new', category: 'Eval', title: 'New Evaluation…', when: 'global' },
    { command: 'evals.showRuns', category: 'Eval', title: 'Show Evaluation Runs', when: 'global' },
    { command: 'evals.run', category: 'Eval', title: 'Run', keys: ['Mod+Enter'], when: 'evals' },
    { command: 'evals.stopAll', category: 'Eval', title: 'Stop All Models', when: 'evals' },
    { command: 'evals.resume', category: 'Eval', title: 'Resume Run', when: 'evals' },
    { command: 'evals.search', category: 'Eval', title: 'Filter Cases by Regular Expression', keys: ['/'], when: 'evals' },
    { command: 'evals.next', category: 'Eval', title: 'Next Case', keys: ['ArrowDown'], when: 'evals', paletteHidden: true, inTextField: false },
    { command: 'evals.previous', category: 'Eval', title: 'Previous Case', keys: ['ArrowUp'], when: 'evals', paletteHidden: true, inTextField: false },
    { command: 'evals.right', category: 'Eval', title: 'Next Model', keys: ['ArrowRight'], when: 'evals', paletteHidden: true, inTextField: false },
    { command: 'evals.left', category: 'Eval', title: 'Previous Model', keys: ['ArrowLeft'], when: 'evals', paletteHidden: true, inTextField: false },
    { command: 'evals.openTrace', category: 'Eval', title: 'Open Trace of Selected Cell', keys: ['Enter'], when: 'evals', inTextField: false },
    { command: 'evals.closeTrace', category: 'Eval', title: 'Close Trace or Clear Filter', keys: ['Escape'], when: 'evals' },
    { command: 'evals.showAll', category: 'Eval', title: 'Display: All Cases', keys: ['Alt+1'], when: 'evals' },
    { command: 'evals.showFailures', category: 'Eval', title: 'Display: Failures', keys: ['Alt+2'], when: 'evals' },
    { command: 'evals.showErrors', category: 'Eval', title: 'Display: Errors', keys: ['Alt+3'], when: 'evals' },
    { command: 'evals.showFlaky', category: 'Eval', title: 'Display: Flaky', keys: ['Alt+4'], when: 'evals' },
    { command: 'evals.showDifferent', category: 'Eval', title: 'Display: Different', keys: ['Alt+5'], when: 'evals' },
    { command: 'evals.exportJson', category: 'Eval', title: 'Export JSON Report', when: 'evals' },
    { command: 'evals.exportJunit', category: 'Eval', title: 'Export JUnit Report', when: 'evals' },
    { command: 'evals.exportMarkdown', category: 'Eval', title: 'Export Markdown Report', when: 'evals' },
    { command: 'evals.exportHtml', category: 'Eval', title: 'Export HTML Report', when: 'evals' },
  ],
};
