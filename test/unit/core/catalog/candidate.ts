import type { PinnedCandidate, SkillBinding } from '../../../../core/selector/types';

/** A pinned candidate of namespace `docs`, revision 1, as pinning returns it. */
export function candidate(name: string, description: string, activation: SkillBinding['activation'] = 'auto'): PinnedCandidate {
  return {
    id: `docs/${name}`,
    namespace: 'docs',
    name,
    activation,
    required: false,
    requested: 'published',
    version: 1,
    manifest_hash: `sha256:${'0'.repeat(64)}`,
    display_name: name,
    description,
    domains: [],
    tags: [],
  };
}
