// Command crd-apiserver is a Kubernetes API server for the end-to-end tests: Kubernetes'
// own apiextensions-apiserver (the part of kube-apiserver that serves CustomResourceDefinitions
// and their objects, with its schema validation, watches and resource versions) on an etcd
// embedded in the same process. It serves on loopback only, over TLS, and admits only client
// certificates signed by --client-ca-file in the group system:masters, as a cluster admin's
// kubeconfig does. A module of its own, so that the collector's go.mod never carries etcd.
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

// A kubeconfig the server needs to start but never uses: with no authentication or
// authorization webhook, only system:masters client certificates are let in.
const unusedKubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "http://127.0.0.1:1"}
  name: none
contexts:
- context: {cluster: none, user: none}
  name: none
current-context: none
users:
- name: none
  user: {username: none, password: none}
`

func main() {
	dir := flag.String("dir", "", "folder for etcd's data and the server's certificate (created)")
	port := flag.Int("secure-port", 0, "the API server's port on 127.0.0.1")
	etcdPort := flag.Int("etcd-port", 0, "etcd's client port on 127.0.0.1")
	peerPort := flag.Int("etcd-peer-port", 0, "etcd's peer port on 127.0.0.1")
	clientCA := flag.String("client-ca-file", "", "CA that signs the clients' certificates")
	flag.Parse()
	if *dir == "" || *port == 0 || *etcdPort == 0 || *peerPort == 0 || *clientCA == "" {
		fmt.Fprintln(os.Stderr, "crd-apiserver: -dir, -secure-port, -etcd-port, -etcd-peer-port and -client-ca-file are required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fail(err)
	}
	kubeconfig := filepath.Join(*dir, "unused.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(unusedKubeconfig), 0o600); err != nil {
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
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
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
