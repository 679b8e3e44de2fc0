/**
 * The tolerant reader for JSON request bodies (docs/decisions.md, "Doordeck's current clients"):
 * the official SDK sends every unset optional field as an explicit `null` and sealed types with an
 * extra `"type"` member, and newer clients may send members we do not know. Driven by the route's
 * own body schema, before it is validated: a `null` in an optional property whose schema does not
 * itself admit null is removed (absent), and a member no schema names is removed (ignored). Known
 * members keep every type and bound check: `"email": 5` is still a 400.
 */

type Schema = Record<string, unknown>;
/** Normalises one value in place. */
type Tolerate = (value: unknown) => void;

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isSchema = (value: unknown): value is Schema => isPlainObject(value);

function branchesOf(schema: Schema): Schema[] {
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return union.filter(isSchema).flatMap(branchesOf);
  if (Array.isArray(schema.allOf)) return schema.allOf.filter(isSchema).flatMap(branchesOf);
  return [schema];
}

/** Whether `null` is a valid value of the schema (a null branch, `type: [..., 'null']`, or no constraint at all). */
export function admitsNull(schema: Schema): boolean {
  return branchesOf(schema).some((branch) => {
    const type = branch.type;
    if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
    if (branch.const === null || (Array.isArray(branch.enum) && branch.enum.includes(null))) return true;
    // An unconstrained schema ({}, Type.Unknown(), or a $ref we do not follow) is left to the validator.
    return type === undefined && branch.properties === undefined && branch.items === undefined && branch.const === undefined && branch.enum === undefined;
  });
}

/** A map (Type.Record, or additional members with a schema): its keys are data, never stripped. */
function isMap(branch: Schema): boolean {
  return branch.patternProperties !== undefined || isSchema(branch.additionalProperties) || branch.additionalProperties === true;
}

interface Member {
  schemas: Schema[];
  /** Optional in every object branch that names it. */
  optional: boolean;
}

function membersOf(objects: Schema[]): Map<string, Member> {
  const members = new Map<string, Member>();
  for (const branch of objects) {
    const required = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
    for (const [name, schema] of Object.entries(branch.properties as Schema)) {
      if (!isSchema(schema)) continue;
      const member = members.get(name) ?? { schemas: [], optional: true };
      member.schemas.push(schema);
      member.optional &&= !required.has(name);
      members.set(name, member);
    }
  }
  return members;
}

function compileObject(objects: Schema[], compile: (schema: Schema) => Tolerate | null): Tolerate | null {
  // A map keeps the members it does not name (they are its data); the ones it names are still normalised.
  const keepUnknown = objects.some(isMap);
  const plans = new Map<string, { dropNull: boolean; inner: Tolerate | null }>();
  for (const [name, member] of membersOf(objects.filter((branch) => isSchema(branch.properties)))) {
    const schema = member.schemas.length === 1 ? member.schemas[0]! : { anyOf: member.schemas };
    plans.set(name, { dropNull: member.optional && !admitsNull(schema), inner: compile(schema) });
  }
  if (keepUnknown && plans.size === 0) return null;
  return (value) => {
    if (!isPlainObject(value)) return;
    for (const key of Object.keys(value)) {
      const plan = plans.get(key);
      if (plan === undefined) {
        if (!keepUnknown) delete value[key];
      } else if (value[key] === null && plan.dropNull) delete value[key];
      else plan.inner?.(value[key]);
    }
  };
}

function compileArray(itemSchemas: Schema[], compile: (schema: Schema) => Tolerate | null): Tolerate | null {
  const items = itemSchemas.length === 1 ? itemSchemas[0]! : { anyOf: itemSchemas };
  const inner = compile(items);
  if (inner === null) return null;
  return (value) => {
    if (Array.isArray(value)) value.forEach((item) => inner(item));
  };
}

/**
 * The normaliser of a body schema, built once per route; null when the schema has no object to
 * normalise (a string body, a Record of anything). Unions merge their object branches: a member is
 * known when any branch names it, and its null is dropped only when every such branch has it optional.
 */
export function compileTolerance(schema: unknown): Tolerate | null {
  const seen = new Map<Schema, Tolerate | null>();
  const compile = (node: Schema): Tolerate | null => {
    if (seen.has(node)) return seen.get(node)!;
    seen.set(node, null); // a cycle (recursive schema) stops here
    const branches = branchesOf(node);
    const objects = branches.filter((b) => isSchema(b.properties) || isMap(b));
    const arrays = branches.filter((b) => isSchema(b.items)).map((b) => b.items as Schema);
    const forObjects = objects.length > 0 ? compileObject(objects, compile) : null;
    const forArrays = arrays.length > 0 ? compileArray(arrays, compile) : null;
    const plan: Tolerate | null =
      forObjects && forArrays ? (value) => (Array.isArray(value) ? forArrays(value) : forObjects(value)) : (forObjects ?? forArrays);
    seen.set(node, plan);
    return plan;
  };
  return isSchema(schema) ? compile(schema) : null;
}
