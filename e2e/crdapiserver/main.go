// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command crd-apiserver is a Kubernetes API server for the end-to-end tests: Kubernetes'
// own apiextensions-apiserver (the part of kube-apiserver that serves CustomResourceDefinitions
// and their objects, with its schema validation, watches and resource versions) on an etcd
// embedded in the same process. It serves on loopback only, over TLS, and admits client
// certificates signed by --client-ca-file in the group system:masters, as a cluster admin's
// kubeconfig does. With -webhook it also admits bearer tokens: it asks that URL, as a
// kube-apiserver's own authenticator and authorizer would, who a token is (a TokenReview)
// and whether they may do what they ask (a SubjectAccessReview); internal/testutil/kubeapitest answers
// those as a cluster's service accounts and RBAC do. A module of its own, so that the
// collector's go.mod never carries etcd.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"
)

// kubeconfigFor points the server's own client nowhere and its delegated authentication and
// authorization at -webhook (which by default points nowhere too), so that only
// system:masters client certificates are let in.
const kubeconfigFor = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: %q}
  name: webhook
contexts:
- context: {cluster: webhook, user: none}
  name: webhook
current-context: webhook
users:
- name: none
  user: {}
`

const nowhere = "http://127.0.0.1:1"

func main() {
	dir := flag.String("dir", "", "folder for etcd's data and the server's certificate (created)")
	port := flag.Int("secure-port", 0, "the API server's port on 127.0.0.1")
	etcdPort := flag.Int("etcd-port", 0, "etcd's client port on 127.0.0.1")
	peerPort := flag.Int("etcd-peer-port", 0, "etcd's peer port on 127.0.0.1")
	clientCA := flag.String("client-ca-file", "", "CA that signs the clients' certificates")
	webhook := flag.String("webhook", nowhere, "base URL that answers TokenReviews and SubjectAccessReviews for bearer tokens")
	flag.Parse()
	if *dir == "" || *port == 0 || *etcdPort == 0 || *peerPort == 0 || *clientCA == "" {
		fmt.Fprintln(os.Stderr, "crd-apiserver: -dir, -secure-port, -etcd-port, -etcd-peer-port and -client-ca-file are required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fail(err)
	}
	kubeconfig := filepath.Join(*dir, "unused.kubeconfig")
	delegated := filepath.Join(*dir, "webhook.kubeconfig")
	if err := os.WriteFile(kubeconfig, fmt.Appendf(nil, kubeconfigFor, nowhere), 0o600); err != nil {
		fail(err)
	}
	if err := os.WriteFile(delegated, fmt.Appendf(nil, kubeconfigFor, *webhook), 0o600); err != nil {
		fail(err)
	}

	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(*dir, "etcd")
	cfg.LogLevel = "error"
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", *etcdPort)}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", *peerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		fail(err)
	}
	select {
	case <-etcd.Server.ReadyNotify():
	case <-time.After(time.Minute):
		fail(fmt.Errorf("etcd not ready within a minute"))
	}

	ctx := genericapiserver.SetupSignalContext()
	cmd := server.NewServerCommand(ctx, os.Stdout, os.Stderr)
	cmd.SetArgs([]string{
		"--etcd-servers=" + client.String(),
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", *port),
		"--cert-dir=" + filepath.Join(*dir, "certs"),
		"--client-ca-file=" + *clientCA,
		"--authentication-skip-lookup",
		"--authentication-kubeconfig=" + delegated,
		"--authorization-kubeconfig=" + delegated,
		"--kubeconfig=" + kubeconfig,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins=NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy",
	})
	code := cli.Run(cmd)
	etcd.Close()
	os.Exit(code)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crd-apiserver:", err)
	os.Exit(1)
}
