/**
 * The guide's authoring advisor (section 5.3): the default advisor over a model
 * client, the host-side check of its JSON Patch proposals, and the analysis
 * every host runs (validate, advise, check).
 */
export { createDefaultAdvisor, DEFAULT_ADVICE_MAX_OUTPUT_TOKENS, DEFAULT_ADVISOR_REASONING_EFFORT } from './advisor';
export type { DefaultAdvisorOptions, ReasoningEffort } from './advisor';
export { analyzePackage } from './analyze';
export type { AnalyzeRequest } from './analyze';
export { decodeAdvice, MAX_ADVISOR_ANSWER_CHARS } from './decode';
export { checkProposal, checkProposals, composeProposals, MAX_PATCH_OPERATIONS, MAX_PROPOSALS, patchFitsSource } from './proposals';
export type { ComposedPatch, ProposalCheck, ProposalCheckOptions } from './proposals';
export { AUTHORING_TEMPLATE_V1, ADVISOR_OUTPUT_FORMAT } from './prompt';
export type { AdvisorTemplate } from './prompt';
export { MalformedAnswerError } from '../models/structured';
