// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package kubeapitest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Rules match as Kubernetes' RBAC matches them.
func TestRuleAllows(t *testing.T) {
	list := &authorizationv1.ResourceAttributes{Verb: "list", Group: "modelplane.ai", Resource: "metricmappings"}
	get := &authorizationv1.ResourceAttributes{Verb: "get", Group: "modelplane.ai", Resource: "metricmappings", Name: "vllm"}
	status := &authorizationv1.ResourceAttributes{Verb: "update", Group: "modelplane.ai", Resource: "metricmappings", Subresource: "status"}
	rule := func(verbs, groups, resources, names []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	mm := []string{"metricmappings"}
	for _, tc := range []struct {
		name string
		rule rbacv1.PolicyRule
		attr *authorizationv1.ResourceAttributes
		want bool
	}{
		{"exact", rule([]string{"get", "list", "watch"}, []string{"modelplane.ai"}, mm, nil), list, true},
		{"other verb", rule([]string{"get", "watch"}, []string{"modelplane.ai"}, mm, nil), list, false},
		{"other group", rule([]string{"list"}, []string{""}, mm, nil), list, false},
		{"other resource", rule([]string{"list"}, []string{"modelplane.ai"}, []string{"pods"}, nil), list, false},
		{"wildcards", rule([]string{"*"}, []string{"*"}, []string{"*"}, nil), status, true},
		{"the resource does not grant its subresource", rule([]string{"update"}, []string{"modelplane.ai"}, mm, nil), status, false},
		{"resource/subresource", rule([]string{"update"}, []string{"modelplane.ai"}, []string{"metricmappings/status"}, nil), status, true},
		{"*/subresource", rule([]string{"update"}, []string{"modelplane.ai"}, []string{"*/status"}, nil), status, true},
		{"named object", rule([]string{"get"}, []string{"modelplane.ai"}, mm, []string{"vllm"}), get, true},
		{"other object", rule([]string{"get"}, []string{"modelplane.ai"}, mm, []string{"sglang"}), get, false},
		{"names do not grant a list", rule([]string{"list"}, []string{"modelplane.ai"}, mm, []string{"vllm"}), list, false},
	} {
		assert.Equal(t, tc.want, ruleAllows(tc.rule, tc.attr), tc.name)
	}
}

// A rule grants through a ClusterRoleBinding to the service account, a group it is in or a
// user, and nothing else does.
func TestAllows(t *testing.T) {
	a, err := parseAccess(`apiVersion: v1
kind: ServiceAccount
metadata: {name: collector, namespace: monitoring}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
- {apiGroups: [modelplane.ai], resources: [metricmappings], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects:
- {kind: ServiceAccount, name: collector, namespace: monitoring}
- {kind: Group, name: readers}
`)
	require.NoError(t, err)
	require.Len(t, a.tokens, 1)
	list := &authorizationv1.ResourceAttributes{Verb: "list", Group: "modelplane.ai", Resource: "metricmappings"}
	spec := func(user string, groups ...string) authorizationv1.SubjectAccessReviewSpec {
		return authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: list}
	}
	assert.True(t, a.allows(spec("system:serviceaccount:monitoring:collector")))
	assert.True(t, a.allows(spec("someone", "readers")))
	assert.False(t, a.allows(spec("system:serviceaccount:default:collector")), "same name, other namespace")
	assert.False(t, a.allows(spec("someone", "system:authenticated")))
	assert.False(t, a.allows(authorizationv1.SubjectAccessReviewSpec{User: "system:serviceaccount:monitoring:collector",
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/metrics"}}))

	_, err = parseAccess("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: x}\n")
	assert.ErrorContains(t, err, "RoleBinding documents are not modelled")
}
