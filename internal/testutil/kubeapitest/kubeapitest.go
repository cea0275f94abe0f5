// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package kubeapitest starts a real Kubernetes API server for tests: Kubernetes'
// apiextensions-apiserver on an embedded etcd (e2e/crdapiserver), on loopback, with
// Modelplane's MetricMapping CustomResourceDefinition installed, and gives a cluster admin's
// kubeconfig and client for it. StartWithAccess also admits service accounts by a chart's
// RBAC objects, and InPod runs a process as a pod of one (access.go). The server is built
// from its own module on first use, or taken from $CRD_APISERVER_BIN, as `make test` builds it.
package kubeapitest // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/kubeapitest"

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

var (
	crds = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// MetricMappings is the resource the collector reads.
	MetricMappings = schema.GroupVersionResource{Group: "modelplane.ai", Version: "v1alpha1", Resource: "metricmappings"}
)

// Server is a started API server.
type Server struct {
	// Kubeconfig is the path of a kubeconfig with a system:masters client certificate.
	Kubeconfig string
	// Client talks to the server as that user.
	Client dynamic.Interface
	// port is the server's on 127.0.0.1; servingCA the file of its certificate and CA.
	port      int
	servingCA string
	// access answers the server's TokenReviews and SubjectAccessReviews (StartWithAccess).
	access *access
	out    *syncbuffer.Buffer
	cmd    *exec.Cmd
	exited chan struct{}
}

func repoRoot() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..")
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// binary is $CRD_APISERVER_BIN, or the server built once per test process.
func binary() (string, error) {
	if b := os.Getenv("CRD_APISERVER_BIN"); b != "" {
		return b, nil
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "crd-apiserver")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "crd-apiserver")
		cmd := exec.Command("go", "build", "-o", built, ".")
		cmd.Dir = filepath.Join(repoRoot(), "e2e", "crdapiserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building e2e/crdapiserver: %w\n%s", err, out)
		}
	})
	return built, buildErr
}

// Start starts the server, installs deploy/crd's MetricMapping definition and waits until it
// serves MetricMappings. The server stops when the test ends.
func Start(t *testing.T) *Server {
	t.Helper()
	s := StartWithoutDefinition(t)
	s.InstallDefinition(t)
	return s
}

// StartWithoutDefinition starts the server as a cluster without Modelplane is: it does not
// serve MetricMappings until InstallDefinition.
func StartWithoutDefinition(t *testing.T) *Server {
	t.Helper()
	return start(t, nil)
}

// pickPorts picks the server's, etcd's and etcd's peer port; a test replaces it to hand out
// a taken port.
var pickPorts = func() ([]int, error) { return freeport.Ports(3) }

// launches is how many times start tries ports before it gives up on a port taken between
// the pick and the bind.
const launches = 3

// start starts the server; with a, it admits a's service accounts too. A port taken between
// its pick and the bind (by another test's server, or an outgoing connection) fails only
// that launch: start tries again on new ports, so a test does not fail on a race of the host.
func start(t *testing.T, a *access) *Server {
	t.Helper()
	bin, err := binary()
	require.NoError(t, err)
	dir := t.TempDir()
	caPEM, certPEM, keyPEM := clientCertificate(t)
	caFile := filepath.Join(dir, "client-ca.crt")
	require.NoError(t, os.WriteFile(caFile, caPEM, 0o600))
	var webhook []string
	webhookLog := new(syncbuffer.Buffer)
	if a != nil {
		webhook = []string{"-webhook", a.serve(t, webhookLog)}
	}
	for launch := 1; ; launch++ {
		ports, err := pickPorts()
		require.NoError(t, err)
		s := &Server{port: ports[0], access: a, out: new(syncbuffer.Buffer), exited: make(chan struct{})}
		serverDir := filepath.Join(dir, fmt.Sprintf("server-%d", launch))
		args := append([]string{"-dir", serverDir, "-secure-port", strconv.Itoa(ports[0]),
			"-etcd-port", strconv.Itoa(ports[1]), "-etcd-peer-port", strconv.Itoa(ports[2]),
			"-client-ca-file", caFile}, webhook...)
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = s.out, s.out
		require.NoError(t, cmd.Start())
		s.cmd = cmd
		exited := s.exited
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(s.Stop)
		if s.serve(t, serverDir, certPEM, keyPEM) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("API server output:\n%s%s", s.out.String(), webhookLog.String())
				}
			})
			return s
		}
		out := s.out.String()
		if launch < launches && strings.Contains(out, "address already in use") {
			t.Logf("the API server found a port taken (launch %d of %d), trying new ports:\n%s", launch, launches, out)
			continue
		}
		t.Fatalf("the API server exited:\n%s%s", out, webhookLog.String())
	}
}

// serve waits until the launched server answers, with a kubeconfig and client for it, or
// reports false when it exited first.
func (s *Server) serve(t *testing.T, serverDir string, certPEM, keyPEM []byte) bool {
	t.Helper()
	// The server writes its self-signed certificate, with its CA, before it listens.
	serving := filepath.Join(serverDir, "certs", "apiserver.crt")
	s.servingCA = serving
	// Eventually polls in a goroutine of its own, where t.Fatal would not end the test: an exit
	// ends the wait, and is reported by the caller.
	require.Eventually(t, func() bool {
		if s.hasExited() {
			return true
		}
		_, err := os.Stat(serving)
		return err == nil
	}, 90*time.Second, 100*time.Millisecond, "no serving certificate")
	if s.hasExited() {
		return false
	}
	kc := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "test",
		"clusters": []any{map[string]any{"name": "test", "cluster": map[string]any{
			"server": fmt.Sprintf("https://127.0.0.1:%d", s.port), "certificate-authority": serving}}},
		"users": []any{map[string]any{"name": "admin", "user": map[string]any{
			"client-certificate-data": certPEM, "client-key-data": keyPEM}}},
		"contexts": []any{map[string]any{"name": "test", "context": map[string]any{"cluster": "test", "user": "admin"}}},
	}
	data, err := yaml.Marshal(kc)
	require.NoError(t, err)
	s.Kubeconfig = filepath.Join(serverDir, "kubeconfig")
	require.NoError(t, os.WriteFile(s.Kubeconfig, data, 0o600))
	rc, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	s.Client, err = dynamic.NewForConfig(rc)
	require.NoError(t, err)
	// The secure port is bound after the certificate is written: a taken one ends the
	// server here.
	require.Eventually(t, func() bool {
		if s.hasExited() {
			return true
		}
		_, err := s.Client.Resource(crds).List(context.Background(), metav1.ListOptions{})
		return err == nil
	}, 60*time.Second, 100*time.Millisecond, "the API server does not answer")
	return !s.hasExited()
}

func (s *Server) hasExited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// InstallDefinition installs deploy/crd's MetricMapping definition and waits until the
// server serves MetricMappings.
func (s *Server) InstallDefinition(t *testing.T) {
	t.Helper()
	crdYAML, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "crd", "metricmappings.modelplane.ai.yaml"))
	require.NoError(t, err)
	crd := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(crdYAML, &crd.Object))
	require.Eventually(t, func() bool {
		_, err := s.Client.Resource(crds).Create(context.Background(), crd, metav1.CreateOptions{})
		return err == nil
	}, 60*time.Second, 200*time.Millisecond, "the API server did not take the CustomResourceDefinition")
	require.Eventually(t, func() bool {
		_, err := s.Client.Resource(MetricMappings).List(context.Background(), metav1.ListOptions{})
		return err == nil
	}, 60*time.Second, 200*time.Millisecond, "MetricMappings not served")
}

// Stop stops the server (SIGINT, then SIGKILL after 20 s) and waits until it has exited.
func (s *Server) Stop() {
	if s.hasExited() {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Kill ends the server at once, as a crashed or rebooted control plane does.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Apply creates or replaces a MetricMapping written as YAML; the API server's answer,
// schema errors included, is returned.
func (s *Server) Apply(doc string) error {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		return err
	}
	ctx := context.Background()
	r := s.Client.Resource(MetricMappings)
	old, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		_, err = r.Create(ctx, obj, metav1.CreateOptions{})
		return err
	}
	obj.SetResourceVersion(old.GetResourceVersion())
	_, err = r.Update(ctx, obj, metav1.UpdateOptions{})
	return err
}

// Delete deletes the MetricMapping name.
func (s *Server) Delete(name string) error {
	return s.Client.Resource(MetricMappings).Delete(context.Background(), name, metav1.DeleteOptions{})
}

// clientCertificate returns a CA and a client certificate it signed for a cluster admin
// (group system:masters), PEM-encoded.
func clientCertificate(t *testing.T) (caPEM, certPEM, keyPEM []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubeapitest-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
