{{/* The chart's name, "steward" unless nameOverride. */}}
{{- define "steward.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name of the release's objects: fullnameOverride, the release name when it contains the chart name, else RELEASE-steward. */}}
{{- define "steward.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "steward.operatorName" -}}
{{- printf "%s-operator" (include "steward.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "steward.selectorLabels" -}}
app.kubernetes.io/name: {{ include "steward.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "steward.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "steward.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: steward
{{- end -}}

{{- define "steward.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create -}}
{{- default (include "steward.operatorName" .) .Values.operator.serviceAccount.name -}}
{{- else -}}
{{- required "operator.serviceAccount.name is required when operator.serviceAccount.create is false" .Values.operator.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Steward image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "steward.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The rules the operator needs: what it manages, and everything it grants the runtimes (RUNTIME_RULES of
operator/controllers/orchestrator/desired.ts; Kubernetes refuses a Role granting more than its creator has). */}}
{{- define "steward.operatorRules" -}}
- apiGroups: [steward.dev]
  resources: [orchestrators, agentconfigs, policies, connectors, licenses, policyexceptions, budgets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [steward.dev]
  resources: [orchestrators/status, agentconfigs/status, policies/status, connectors/status, licenses/status, policyexceptions/status, budgets/status]
  verbs: [get, update, patch]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [services, configmaps, secrets, serviceaccounts]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [events]
  verbs: [get, list, watch, create, update, patch]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, update, patch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [get, list, watch]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [networking.k8s.io]
  resources: [ingresses]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
{{- end -}}
