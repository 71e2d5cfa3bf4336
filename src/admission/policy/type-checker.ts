// A policy's expressions type-checked against the kinds it matches (kube's validating
// TypeChecker, run by the status controller): for each kind named exactly by the policy's
// resourceRules (no wildcards; at most 10), every validation's expression and messageExpression
// is checked with `object` typed by the kind's schema and `params` by the paramKind's; each
// problem is a warning `<group>/<version>, Kind=<kind>: <issues>` on status.typeChecking.

import { admissionDeclarations } from '../../cel/admission-env.js';
import { CompileError, compileExpression, typeCheckIssues } from '../../cel/program.js';
import { T, type CelType } from '../../cel/types.js';
import { commonSchemas } from '../../apimachinery/common-schemas.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { ExpressionWarning, ValidatingAdmissionPolicy } from '../../resources/admissionregistration/types.js';
import { schemaCelType } from './schema-types.js';

const MAX_TYPES_TO_CHECK = 10;

export interface DefinitionLookup {
  byResource(group: string, version: string, resource: string): ResourceDefinition | undefined;
  byKind(group: string, version: string, kind: string): ResourceDefinition | undefined;
}

interface TypedKind {
  readonly gvk: string;
  readonly type: CelType;
}

/** kube names a schema's root type after its kind plus the clock's nanoseconds. */
const uniqueTypeName = (kind: string): string => `${kind}${Number(process.hrtime.bigint() % 1_000_000_000n)}`;

function kindType(def: ResourceDefinition): CelType {
  return schemaCelType(def.schemas[def.schemaName], { ...commonSchemas, ...def.schemas }, uniqueTypeName(def.kind));
}

const noWildcard = (xs: readonly string[] | undefined, chars: RegExp): string[] | undefined => {
  const list = xs ?? [];
  return list.some((x) => chars.test(x)) ? undefined : [...list];
};

/** The kinds a policy's rules name exactly, sorted by group, version, kind. */
function typesToCheck(p: ValidatingAdmissionPolicy, defs: DefinitionLookup): ResourceDefinition[] {
  const found = new Map<string, ResourceDefinition>();
  for (const rule of p.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = noWildcard(rule.apiGroups, /\*/)?.sort();
    const versions = noWildcard(rule.apiVersions, /\*/)?.sort();
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r)).sort();
    if (!groups?.length || !versions?.length || !resources.length) continue;
    for (const g of groups)
      for (const v of versions)
        for (const r of resources) {
          const def = defs.byResource(g, v, r);
          if (!def) continue;
          found.set(`${def.group}/${def.version}, Kind=${def.kind}`, def);
          if (found.size === MAX_TYPES_TO_CHECK) return sorted(found);
        }
  }
  return sorted(found);
}

const sorted = (m: Map<string, ResourceDefinition>): ResourceDefinition[] =>
  [...m.values()].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));

export function typeCheckPolicy(p: ValidatingAdmissionPolicy, defs: DefinitionLookup): ExpressionWarning[] {
  const kinds: TypedKind[] = typesToCheck(p, defs).map((d) => ({ gvk: `${d.group}/${d.version}, Kind=${d.kind}`, type: kindType(d) }));
  if (kinds.length === 0) return [];
  const pk = p.spec?.paramKind;
  const [pg, pv] = (pk?.apiVersion ?? '').includes('/') ? (pk!.apiVersion!.split('/', 2) as [string, string]) : ['', pk?.apiVersion ?? ''];
  const paramDef = pk ? defs.byKind(pg, pv, pk.kind ?? '') : undefined;
  const paramsType = paramDef ? kindType(paramDef) : undefined;
  // Per kind: the declarations with the policy's variables typed for that kind.
  const envs = kinds.map((k) => {
    const variables = new Map<string, CelType>();
    const decls = () => admissionDeclarations({ params: pk !== undefined, authorizer: true, variables, objectType: k.type, paramsType });
    for (const v of p.spec?.variables ?? []) {
      const c = compileExpression(v.expression ?? '', decls(), 'any');
      variables.set(v.name ?? '', c instanceof CompileError ? T.dyn : c.outputType);
    }
    return { gvk: k.gvk, decls: decls() };
  });
  const check = (expression: string): string | undefined => {
    const messages = envs.flatMap((e) => {
      const issues = typeCheckIssues(expression, e.decls);
      return issues === undefined ? [] : [`${e.gvk}: ${issues}\n`];
    });
    return messages.length ? messages.join('\n') : undefined;
  };
  const warnings: ExpressionWarning[] = [];
  (p.spec?.validations ?? []).forEach((v, i) => {
    const w = check(v.expression ?? '');
    if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
