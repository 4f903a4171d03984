/** One node of an EXPLAIN (FORMAT JSON) tree; VERBOSE adds expression keys (Output, Filter, …). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** Every node of a plan tree, depth first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
