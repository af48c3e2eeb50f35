/**
 * Report writers of an evaluation run: JSON (everything, streamed), JUnit XML
 * (CI test results), Markdown (a pull-request comment) and a standalone HTML
 * page. See docs/eval-reports.md for the formats and how numbers trace to cells.
 */
export { readCells, cellShapeProblem, type ReadCellsOptions } from './cells';
export { writeJsonReport, type JsonReportWritten, type ReportWritten } from './json';
export { writeJunitReport, type JunitReportWritten } from './junit';
export { renderMarkdownReport, writeMarkdownReport, MARKDOWN_REPORT_MARKER, type MarkdownOptions } from './markdown';
export { writeHtmlReport, HTML_REPORT_CSP, type HtmlReportOptions, type HtmlReportWritten } from './html';
export { escapeHtml, escapeMarkdown, escapeXmlAttr, escapeXmlText, sanitizeChars } from './escape';
