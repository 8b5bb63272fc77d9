/** A blocking output policy (`llm_output`): any answer — of a model or of a connector — saying FORBIDDEN-WORD is stopped. */
export const OUTPUT_BLOCK = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: no-forbidden-word}
spec:
  type: content
  priority: 4000
  scope: {surfaces: [llm_output]}
  rego: |
    package custom.noforbidden
    deny contains "the answer says the forbidden word" if {
      input.surface == "llm_output"
      contains(input.query, "FORBIDDEN-WORD")
    }
---
`;
