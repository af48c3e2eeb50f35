/**
 * The runtime selector simulation: bindings, limits, pinning, activation,
 * resource selection, projection, prompts and traces (guide sections 6-10, 13.5).
 *
 * Isomorphic: registry reads go through the `SkillRegistryReader` port and
 * model calls through `ModelClient`; no `node:` imports.
 */
export * from './types';
export * from './limits';
export * from './bindings';
export * from './pinning';
export { activateSkills, continueActivation, validateActivation, MAX_TRUSTED_ACTIVATIONS } from './activation';
export type { ActivationInput, ActivationOptions, ActivationOutcome, ActivationPolicy, ActivationPolicyDecision, ActivationPolicyInput, PolicyTrace } from './activation';
export { selectResources, validateResources, resourceKey, MAX_TRUSTED_RESOURCES } from './resources';
export type { ResourceSelectionInput, ResourceSelectionOutcome, SelectedResource } from './resources';
export * from './projection';
export * from './decode';
export { SELECTOR_TEMPERATURE, SELECTOR_MAX_ATTEMPTS } from './call';
export * from './prompts/template';
export { ACTIVATION_TEMPLATE_V1, ACTIVATION_OUTPUT_FORMAT } from './prompts/activation-v1';
export { RESOURCE_TEMPLATE_V1, RESOURCE_OUTPUT_FORMAT } from './prompts/resource-v1';
export { selectForRequest, catalogBindings, SelectionMemo } from './select';
export type { SelectForRequestInput, SelectionResult, SelectionTrace } from './select';
