// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package kubeapitest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/yaml"
)

// StartWithAccess starts the server as Start does, also admitting the service accounts of
// manifests (ServiceAccounts, ClusterRoles and bindings, as a chart renders them), each
// allowed what its ClusterRoles allow. Run a process as one of them with InPod.
func StartWithAccess(t *testing.T, manifests string) *Server {
	t.Helper()
	a, err := parseAccess(manifests)
	require.NoError(t, err)
	s := start(t, a)
	s.InstallDefinition(t)
	return s
}

// access is what a cluster's service accounts and RBAC let each token do.
type access struct {
	tokens   map[string]corev1.ServiceAccount // by token
	roles    map[string]rbacv1.ClusterRole    // by name
	bindings []rbacv1.ClusterRoleBinding

	mu     sync.Mutex
	denied []string // the requests refused, as "user verb group/resource"
}

func parseAccess(manifests string) (*access, error) {
	a := &access{tokens: map[string]corev1.ServiceAccount{}, roles: map[string]rbacv1.ClusterRole{}}
	docs := k8syaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifests)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		switch head.Kind {
		case "":
			continue // an empty document
		case "ServiceAccount":
			var sa corev1.ServiceAccount
			err = yaml.UnmarshalStrict(doc, &sa)
			a.tokens[randomToken()] = sa
		case "ClusterRole":
			var r rbacv1.ClusterRole
			err = yaml.UnmarshalStrict(doc, &r)
			a.roles[r.Name] = r
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			err = yaml.UnmarshalStrict(doc, &b)
			a.bindings = append(a.bindings, b)
		default:
			return nil, fmt.Errorf("kubeapitest: %s documents are not modelled (ServiceAccount, ClusterRole and ClusterRoleBinding are)", head.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("kubeapitest: %s: %w", head.Kind, err)
		}
	}
	return a, nil
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// serve answers TokenReviews and SubjectAccessReviews on loopback until the test ends and
// returns its URL; refusals are written to log.
func (a *access) serve(t *testing.T, log io.Writer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /apis/authentication.k8s.io/v1/tokenreviews", func(w http.ResponseWriter, r *http.Request) {
		var review authenticationv1.TokenReview
		if !decode(w, r, &review) {
			return
		}
		if sa, ok := a.tokens[review.Spec.Token]; ok {
			review.Status = authenticationv1.TokenReviewStatus{
				Authenticated: true, Audiences: review.Spec.Audiences,
				User: authenticationv1.UserInfo{
					Username: serviceaccount.MakeUsername(sa.Namespace, sa.Name),
					Groups:   append(serviceaccount.MakeGroupNames(sa.Namespace), "system:authenticated"),
				},
			}
		}
		reply(w, &review)
	})
	mux.HandleFunc("POST /apis/authorization.k8s.io/v1/subjectaccessreviews", func(w http.ResponseWriter, r *http.Request) {
		var review authorizationv1.SubjectAccessReview
		if !decode(w, r, &review) {
			return
		}
		review.Status.Allowed = a.allows(review.Spec)
		if !review.Status.Allowed {
			refusal := refusalOf(review.Spec)
			a.mu.Lock()
			a.denied = append(a.denied, refusal)
			a.mu.Unlock()
			fmt.Fprintf(log, "kubeapitest: RBAC refused %s\n", refusal)
		}
		reply(w, &review)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func refusalOf(spec authorizationv1.SubjectAccessReviewSpec) string {
	if ra := spec.ResourceAttributes; ra != nil {
		return fmt.Sprintf("%s %s %s/%s", spec.User, ra.Verb, ra.Group, ra.Resource)
	}
	if na := spec.NonResourceAttributes; na != nil {
		return fmt.Sprintf("%s %s %s", spec.User, na.Verb, na.Path)
	}
	return spec.User
}

// allows is RBAC's decision with ClusterRoles and ClusterRoleBindings only: a request is
// allowed when a rule of a role bound to the user, or to one of its groups, covers it.
func (a *access) allows(spec authorizationv1.SubjectAccessReviewSpec) bool {
	ra := spec.ResourceAttributes
	if ra == nil {
		return false // no role here grants non-resource URLs
	}
	for _, b := range a.bindings {
		if b.RoleRef.Kind != "ClusterRole" || !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return subjectIs(s, spec.User, spec.Groups)
		}) {
			continue
		}
		for _, rule := range a.roles[b.RoleRef.Name].Rules {
			if ruleAllows(rule, ra) {
				return true
			}
		}
	}
	return false
}

func subjectIs(s rbacv1.Subject, user string, groups []string) bool {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		return user == serviceaccount.MakeUsername(s.Namespace, s.Name)
	case rbacv1.UserKind:
		return user == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(groups, s.Name)
	}
	return false
}

// ruleAllows follows Kubernetes' RBAC rule matching (pkg/apis/rbac/v1 RuleAllows): verbs,
// API groups and resources match exactly or by "*", a subresource by "resource/sub" or
// "*/sub", and resourceNames, when set, limit the rule to those objects.
func ruleAllows(rule rbacv1.PolicyRule, ra *authorizationv1.ResourceAttributes) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }
	resource := ra.Resource
	if ra.Subresource != "" {
		resource += "/" + ra.Subresource
	}
	resourceOK := has(rule.Resources, resource) ||
		ra.Subresource != "" && slices.Contains(rule.Resources, "*/"+ra.Subresource)
	return has(rule.Verbs, ra.Verb) && has(rule.APIGroups, ra.Group) && resourceOK &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, ra.Name))
}

// Refused lists the requests RBAC refused so far, each as "user verb group/resource".
func (s *Server) Refused() []string {
	if s.access == nil {
		return nil
	}
	s.access.mu.Lock()
	defer s.access.mu.Unlock()
	return slices.Clone(s.access.denied)
}

// InPod returns a command that runs bin as a pod of the service account namespace/name would:
// in user and mount namespaces of its own, with the account's token, CA and namespace mounted
// and KUBERNETES_SERVICE_* set. Skips where this machine refuses those namespaces.
func (s *Server) InPod(t *testing.T, namespace, name, bin string, args ...string) *exec.Cmd {
	t.Helper()
	if out, err := exec.Command("unshare", "--user", "--map-root-user", "--mount", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot run a process as a pod here (unshare --user --mount: %v %s)", err, bytes.TrimSpace(out))
	}
	var token string
	if s.access != nil {
		for tok, sa := range s.access.tokens {
			if sa.Namespace == namespace && sa.Name == name {
				token = tok
			}
		}
	}
	require.NotEmpty(t, token, "no ServiceAccount %s/%s among the manifests StartWithAccess was given", namespace, name)
	secrets := t.TempDir()
	ca, err := os.ReadFile(s.servingCA)
	require.NoError(t, err)
	for file, data := range map[string][]byte{"token": []byte(token), "ca.crt": ca, "namespace": []byte(namespace)} {
		require.NoError(t, os.WriteFile(filepath.Join(secrets, file), data, 0o600))
	}
	// A fresh /run (where /var/run points) is the mount namespace's own, so the files go
	// where client-go reads them without touching the machine's.
	const script = `mount -t tmpfs tmpfs /run && d=/run/secrets/kubernetes.io/serviceaccount && ` +
		`mkdir -p "$d" && cp "$1"/token "$1"/ca.crt "$1"/namespace "$d" && shift && exec "$@"`
	cmd := exec.Command("unshare", append([]string{"--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", secrets, bin}, args...)...)
	cmd.Env = append(os.Environ(), "KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT="+strconv.Itoa(s.port))
	return cmd
}
