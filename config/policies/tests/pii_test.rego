# Unit tests of builtin-pii's Rego (config/policies/pii.yaml), run with `npx steward policy test config/policies`
# beside pack.policytest (docs/policy-testing.md). The policy reads the texts the policy engine normalizes, so the
# inputs here give input.normalized themselves.
package steward.builtin.pii_test

import data.steward.builtin.pii

normalized(text) := {"query": text, "normalized": {"texts": [text], "decoded": []}}

test_luhn_accepts_a_valid_card_number if pii.luhn("4111111111111111")

test_luhn_refuses_a_changed_digit if not pii.luhn("4111111111111112")

test_an_ssn_is_denied if "PII detected: US SSN" in pii.deny with input as normalized("My SSN is 123-45-6789")

test_a_date_is_not_an_ssn if count(pii.deny) == 0 with input as normalized("We met on 2024-05-17 at 10:30")

test_an_email_is_a_warning if {
	"PII detected: email address" in pii.warn with input as normalized("write to maria.garcia@acme-corp.com")
	count(pii.deny) == 0 with input as normalized("write to maria.garcia@acme-corp.com")
}

test_input_without_normalized_texts_is_denied if {
	some msg in pii.deny with input as {"query": "My SSN is 123-45-6789"}
	contains(msg, "input.normalized is missing")
}
