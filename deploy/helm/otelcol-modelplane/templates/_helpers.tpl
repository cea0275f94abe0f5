{{- define "omp.name" -}}{{ .Values.nameOverride | default "otelcol-modelplane" | trunc 63 | trimSuffix "-" }}{{- end -}}

{{- define "omp.fullname" -}}
{{- if .Values.fullnameOverride -}}{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else -}}
{{- $name := include "omp.name" . -}}
{{- if contains $name .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}
{{- end -}}

{{- define "omp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ .Values.serviceAccount.name | default (include "omp.fullname" .) }}{{- else -}}{{ .Values.serviceAccount.name | default "default" }}{{- end -}}
{{- end -}}

{{/* The prometheus sinks: each serves a pull endpoint on the pod, at its port. */}}
{{- define "omp.pullSinks" -}}
{{- range .Values.sinks -}}{{- if eq .type "prometheus" }}
- {{ toJson . }}
{{- end -}}{{- end -}}
{{- end -}}

{{- define "omp.labels" -}}
app.kubernetes.io/name: {{ include "omp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "omp.selector" -}}
app.kubernetes.io/name: {{ include "omp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* GOMEMLIMIT at 80% of the memory limit, in whole MiB, for a limit written as Kubernetes
writes quantities: bytes, or a number (decimals allowed) with k, M, G, T or Ki, Mi, Gi, Ti.
Nothing for another form (an exponent); the memory limiter still reads the cgroup's limit. */}}
{{- define "omp.gomemlimit" -}}
{{- $limit := toString (default "" ((.Values.resources.limits | default dict).memory)) -}}
{{- if regexMatch "^[0-9]+(\\.[0-9]+)?(k|M|G|T|Ki|Mi|Gi|Ti)?$" $limit -}}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $limit -}}
{{- $unit := trimPrefix $number $limit -}}
{{- $factor := get (dict "" 1.0 "k" 1e3 "M" 1e6 "G" 1e9 "T" 1e12 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0) $unit -}}
{{- floor (divf (mulf (float64 $number) $factor 0.8) 1048576) | int64 }}MiB
{{- end -}}
{{- end -}}

{{/* The exporters' time at a stop: 15 s less than the grace period, at least half of it. */}}
{{- define "omp.exporterStopTimeout" -}}
{{- $grace := int .Values.terminationGracePeriodSeconds -}}
{{- max (sub $grace 15) (div $grace 2) }}s
{{- end -}}

{{/* One pod scrape job over this node's pods: name, selector label, keep rules, extra relabels. */}}
{{- define "omp.podJob" -}}
- job_name: {{ .name }}
  scrape_interval: {{ .interval }}
  {{- with .path }}
  metrics_path: {{ . }}
  {{- end }}
  kubernetes_sd_configs:
    - role: pod
      selectors:
        - role: pod
          field: spec.nodeName=${env:NODE_NAME}
          {{- with .label }}
          label: {{ . }}
          {{- end }}
  relabel_configs:
    - source_labels: [__meta_kubernetes_pod_phase]
      regex: Pending|Succeeded|Failed|Completed
      action: drop
    {{- with .keep }}
{{ toYaml . | indent 4 }}
    {{- end }}
    - source_labels: [__meta_kubernetes_namespace]
      target_label: namespace
    - source_labels: [__meta_kubernetes_pod_name]
      target_label: replica
    - source_labels: [__meta_kubernetes_pod_node_name]
      target_label: node
    {{- with .extra }}
{{ toYaml . | indent 4 }}
    {{- end }}
  {{- with .metricRelabel }}
  metric_relabel_configs:
{{ toYaml . | indent 4 }}
  {{- end }}
{{- end -}}

{{/* A sink's exporter type. Modelplane's TelemetryDestination spells the OTLP exporters
by their older names, otlphttp and otlp, which the collector still accepts as deprecated
aliases; rendered under their current names, so a sink copied from a TelemetryDestination
works as written and the collector logs no deprecation. */}}
{{- define "omp.sinkType" -}}
{{- get (dict "otlphttp" "otlp_http" "otlp" "otlp_grpc") . | default . -}}
{{- end -}}

{{/* How many sinks queue: those with a sending queue on disk when persistentQueue is on. */}}
{{- define "omp.queuedSinks" -}}
{{- $n := 0 -}}
{{- range . -}}
{{- if has (include "omp.sinkType" .type) (list "prometheus_remote_write" "otlp_http" "otlp_grpc") -}}{{- $n = add1 $n -}}{{- end -}}
{{- end -}}
{{- $n -}}
{{- end -}}

{{/* A sink's sending queue on disk, bounded in bytes: the sinks share persistentQueueMiB
evenly, so a long outage fills the queues (and the collector counts and alerts on what it
then refuses) before their files outgrow the emptyDir they live on (daemonset.yaml), which
the kubelet would answer by evicting the pod and the whole backlog with it. */}}
{{- define "omp.diskQueue" -}}
{{- $queued := max 1 (atoi .queued) -}}
enabled: true
storage: file_storage
sizer: bytes
queue_size: {{ div (mul .delivery.persistentQueueMiB 1048576) $queued }}
{{- end -}}

{{/* The exporter of one sink, with Modelplane's defaults under the sink's own config.
Remote write leaves out the otel_scope_name and otel_scope_version labels: on scraped series
they name the Prometheus receiver and this collector's version, so every series would change
its label set at each upgrade of the collector, and a GPU's at a switch between dcgm-exporter
and the dcgm receiver; the identity labels tell series apart. */}}
{{- define "omp.exporterConfig" -}}
{{- $s := .sink -}}
{{- $type := include "omp.sinkType" $s.type -}}
{{- $cfg := dict -}}
{{- if eq $type "prometheus_remote_write" -}}
{{- $cfg = dict "target_info" (dict "enabled" false) "disable_scope_info" true "max_batch_request_parallelism" 1 "retry_on_failure" (dict "enabled" true "initial_interval" "1s" "max_interval" "5s" "max_elapsed_time" 0) "timeout" .delivery.timeout -}}
{{- /* On disk as the OTLP sinks' queue (the exporter's sending_queue, which writes one batch
at a time); otherwise contrib's queue in memory. */ -}}
{{- if .delivery.persistentQueue -}}
{{- $_ := set $cfg "sending_queue" (include "omp.diskQueue" . | fromYaml) -}}
{{- else -}}
{{- $_ := set $cfg "remote_write_queue" (dict "queue_size" .delivery.queueSize) -}}
{{- end -}}
{{- if not (or (hasKey ($s.config | default dict) "resource_to_telemetry_conversion") (hasKey ($s.config | default dict) "resource_constant_labels")) -}}
{{- $_ := set $cfg "resource_constant_labels" (dict "included" (list "*")) -}}
{{- end -}}
{{- else if or (eq $type "otlp_http") (eq $type "otlp_grpc") -}}
{{- $cfg = dict "retry_on_failure" (dict "enabled" true "initial_interval" "1s" "max_interval" "5s" "max_elapsed_time" 0) -}}
{{- if .delivery.persistentQueue -}}
{{- $_ := set $cfg "sending_queue" (include "omp.diskQueue" . | fromYaml) -}}
{{- else -}}
{{- $_ := set $cfg "sending_queue" (dict "enabled" true "queue_size" .delivery.queueSize) -}}
{{- end -}}
{{- else if eq $type "prometheus" -}}
{{- $cfg = dict "endpoint" (printf "[${env:POD_IP}]:%d" (int ($s.port | default 9464))) "resource_constant_labels" (dict "included" (list "*")) "without_scope_info" true -}}
{{- else if eq $type "debug" -}}
{{- $cfg = dict "verbosity" "basic" -}}
{{- end -}}
{{- $cfg = mergeOverwrite $cfg (deepCopy ($s.config | default dict)) -}}
{{- if $s.endpoint -}}{{- $_ := set $cfg "endpoint" $s.endpoint -}}{{- end -}}
{{- /* OTLP/gRPC connects with TLS unless tls.insecure is true, http:// or not: an http://
endpoint, as a plaintext in-cluster gateway is written, gets tls.insecure unless config says. */ -}}
{{- if and (eq $type "otlp_grpc") (hasPrefix "http://" (toString $cfg.endpoint)) -}}
{{- $tls := $cfg.tls | default dict -}}
{{- if not (hasKey $tls "insecure") -}}
{{- $_ := set $tls "insecure" true -}}
{{- $_ := set $cfg "tls" $tls -}}
{{- end -}}
{{- end -}}
{{- if and $s.auth $s.auth.bearerTokenKey -}}
{{- $_ := set $cfg "auth" (dict "authenticator" (printf "bearertokenauth/%s" $s.name)) -}}
{{- end -}}
{{ toYaml $cfg }}
{{- end -}}

{{/* Whether NVML comes from a driver folder of the node rather than the NVIDIA runtime. */}}
{{- define "omp.nvmlFromHost" -}}
{{- if and .Values.dcgm.enabled (eq .Values.dcgm.nvml.from "hostPath") }}true{{ end -}}
{{- end -}}

{{/* Whether the container runs privileged for the GPUs: always with NVML from a driver folder
(for the device files), and on request with the NVIDIA runtime, where it hands
NVIDIA_VISIBLE_DEVICES=all only to privileged containers. */}}
{{- define "omp.gpuPrivileged" -}}
{{- if and .Values.dcgm.enabled (or (eq .Values.dcgm.nvml.from "hostPath") .Values.dcgm.nvml.privileged) }}true{{ end -}}
{{- end -}}
