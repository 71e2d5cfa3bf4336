// Whether a request falls under a policy's matchConstraints or a binding's matchResources
// (kube's matching.Matcher): selectors first, excluded rules, then the rules (none: every
// resource); a selector that does not parse matters only once the rules match.

import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import type { MatchResources } from '../../resources/admissionregistration/types.js';
import { namedRulesMatch } from './rules.js';
import { compileSelector, namespaceSelectorMatches, objectSelectorMatches } from './selectors.js';

export type MatchOutcome = boolean | { error: string };

const selectorError = (e: { error: string }): { error: string } => ({ error: `Internal error occurred: ${e.error}` });

export function matchesResources(mr: MatchResources, a: AdmissionAttributes): MatchOutcome {
  const ns = namespaceSelectorMatches(compileSelector(mr.namespaceSelector ?? {}), a);
  if (ns === false) return false;
  const obj = objectSelectorMatches(compileSelector(mr.objectSelector ?? {}), a);
  if (obj === false) return false;
  if (namedRulesMatch(mr.excludeResourceRules, a)) return false;
  if (mr.resourceRules?.length && !namedRulesMatch(mr.resourceRules, a)) return false;
  if (typeof ns === 'object') return selectorError(ns);
  if (typeof obj === 'object') return selectorError(obj);
  return true;
}

/** A policy's matchConstraints (required, with both selectors set by defaulting). */
export function definitionMatches(mr: MatchResources | undefined, a: AdmissionAttributes): MatchOutcome {
  if (!mr) return { error: 'policy contained no match constraints, a required field' };
  return matchesResources(mr, a);
}

/** A binding's matchResources: absent matches every request its policy matches. */
export function bindingMatches(mr: MatchResources | undefined, a: AdmissionAttributes): MatchOutcome {
  return mr ? matchesResources(mr, a) : true;
}
