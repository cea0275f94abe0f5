// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// Ways cluster_mappings reaches the API server.
const (
	AuthServiceAccount = "serviceAccount"
	AuthKubeConfig     = "kubeConfig"
)

// ClusterMappingsConfig reads MetricMapping objects from the Kubernetes API server, as
// Modelplane's control plane does, and follows every change to them.
type ClusterMappingsConfig struct {
	Enabled bool `mapstructure:"enabled"`
	// AuthType is serviceAccount (the pod's token, in a cluster) or kubeConfig.
	AuthType string `mapstructure:"auth_type"`
	// Kubeconfig is the file for kubeConfig; empty: $KUBECONFIG, then ~/.kube/config.
	Kubeconfig string `mapstructure:"kubeconfig"`
	// SyncTimeout bounds how long Start waits for the first list, so that the first batches
	// are mapped by the cluster's mappings too; past it the collector runs without them and
	// takes them when the list arrives.
	SyncTimeout time.Duration `mapstructure:"sync_timeout"`
}

func (c ClusterMappingsConfig) validate() error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	if c.AuthType != AuthServiceAccount && c.AuthType != AuthKubeConfig {
		errs = append(errs, fmt.Errorf("cluster_mappings::auth_type: want %s or %s, got %q", AuthServiceAccount, AuthKubeConfig, c.AuthType))
	}
	if c.Kubeconfig != "" && c.AuthType != AuthKubeConfig {
		errs = append(errs, fmt.Errorf("cluster_mappings::kubeconfig: set to %q, but auth_type is %q (want %s)", c.Kubeconfig, c.AuthType, AuthKubeConfig))
	}
	if c.SyncTimeout < 0 {
		errs = append(errs, fmt.Errorf("cluster_mappings::sync_timeout: must not be negative, got %v", c.SyncTimeout))
	}
	return errors.Join(errs...)
}

// metricMappings is the MetricMapping resource, cluster-scoped.
var metricMappings = schema.GroupVersionResource{Group: "modelplane.ai", Version: "v1alpha1", Resource: "metricmappings"}

// clusterSource names the cluster's objects in messages, where a file's path would be.
const clusterSource = "cluster metricmappings.modelplane.ai"

func (c ClusterMappingsConfig) client() (dynamic.Interface, error) {
	rc, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	rc.UserAgent = "otelcol-modelplane"
	return dynamic.NewForConfig(rc)
}

// restConfig reads the credentials auth_type names: the pod's service account, or a
// kubeconfig file (read, not contacted).
func (c ClusterMappingsConfig) restConfig() (*rest.Config, error) {
	var rc *rest.Config
	var err error
	if c.AuthType == AuthServiceAccount {
		rc, err = rest.InClusterConfig()
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if c.Kubeconfig != "" {
			rules.ExplicitPath = c.Kubeconfig
		}
		rc, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("cluster_mappings (auth_type %s): %w", c.AuthType, err)
	}
	return rc, nil
}

// listClusterMappings reads every MetricMapping once, for the scrape filter, which is built
// before the processor starts.
func listClusterMappings(ctx context.Context, c ClusterMappingsConfig) ([]metricmapping.MetricMapping, error) {
	client, err := c.client()
	if err != nil {
		return nil, err
	}
	list, err := client.Resource(metricMappings).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cluster_mappings: listing %s: %w", metricMappings.GroupResource(), err)
	}
	objs := make([]*unstructured.Unstructured, 0, len(list.Items))
	for i := range list.Items {
		objs = append(objs, &list.Items[i])
	}
	set, _ := decodeObjects(objs, nil) // problems are the processor's to report
	return set.mappings(), nil
}

// clusterWatch follows the MetricMapping objects through an informer.
type clusterWatch struct {
	logger   *zap.Logger
	informer cache.SharedIndexInformer
	stop     chan struct{}
	done     sync.WaitGroup
	// changes counts the informer's events; a reload decodes the objects anew only when it
	// moved.
	changes atomic.Uint64

	mu      sync.Mutex
	lastErr string
}

func newClusterWatch(c ClusterMappingsConfig, logger *zap.Logger) (*clusterWatch, error) {
	client, err := c.client()
	if err != nil {
		return nil, err
	}
	w := &clusterWatch{logger: logger, stop: make(chan struct{})}
	w.informer = dynamicinformer.NewFilteredDynamicInformer(client, metricMappings, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
	bump := func(any) { w.changes.Add(1) }
	if _, err := w.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    bump,
		UpdateFunc: func(_, o any) { bump(o) },
		DeleteFunc: bump,
	}); err != nil {
		return nil, err
	}
	// The reflector retries with back-off on its own; say what fails, once per new reason,
	// where client-go would print it to stderr on every try.
	if err := w.informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if msg := err.Error(); msg != w.lastErr {
			w.lastErr = msg
			w.logger.Warn("Cannot read MetricMappings from the API server; retrying, the mappings loaded so far stay",
				zap.String("resource", metricMappings.GroupResource().String()), zap.Error(err))
		}
	}); err != nil {
		return nil, err
	}
	return w, nil
}

// start runs the informer and waits up to timeout for its first list.
func (w *clusterWatch) start(timeout time.Duration) {
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		w.informer.Run(w.stop)
	}()
	if timeout == 0 {
		return // asked not to wait
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), w.informer.HasSynced) {
		w.logger.Warn("MetricMappings not read from the API server yet; running without them until they are",
			zap.Duration("waited", timeout))
	}
}

func (w *clusterWatch) shutdown() {
	close(w.stop)
	w.done.Wait()
}

// objects returns the MetricMapping objects the informer holds now.
func (w *clusterWatch) objects() []*unstructured.Unstructured {
	items := w.informer.GetStore().List()
	out := make([]*unstructured.Unstructured, 0, len(items))
	for _, it := range items {
		if u, ok := it.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	}
	return out
}

// objectState is the last good decoding of one MetricMapping object.
type objectState struct {
	resourceVersion string
	mappings        []metricmapping.MetricMapping
}

// clusterSet is one reading of the cluster's MetricMappings, in name order, as
// `kubectl get metricmappings` lists them.
type clusterSet struct {
	names []string
	state map[string]*objectState
}

// decodeObjects decodes the objects that changed since prev. An object updated into one the
// processor cannot use keeps its last good version, as a mapping file does; a deleted object
// goes.
func decodeObjects(objs []*unstructured.Unstructured, prev *clusterSet) (*clusterSet, []error) {
	next := &clusterSet{state: make(map[string]*objectState, len(objs))}
	var errs []error
	for _, o := range objs {
		name, rv := o.GetName(), o.GetResourceVersion()
		next.names = append(next.names, name)
		var old *objectState
		if prev != nil {
			old = prev.state[name]
		}
		if old != nil && old.resourceVersion == rv {
			next.state[name] = old
			continue
		}
		data, err := yaml.Marshal(o.Object)
		var res metricmapping.Result
		if err != nil {
			res.Errors = []error{fmt.Errorf("%s: MetricMapping %q: %w", clusterSource, name, err)}
		} else {
			res = metricmapping.DecodeObject(clusterSource, data)
		}
		if old != nil && len(res.Errors) > 0 {
			for _, err := range res.Errors {
				errs = append(errs, fmt.Errorf("%w; kept its last good version", err))
			}
			next.state[name] = &objectState{resourceVersion: rv, mappings: old.mappings}
			continue
		}
		errs = append(errs, res.Errors...)
		next.state[name] = &objectState{resourceVersion: rv, mappings: res.Mappings}
	}
	sort.Strings(next.names)
	return next, errs
}

// mappings returns every object's mappings in name order.
func (cs *clusterSet) mappings() []metricmapping.MetricMapping {
	if cs == nil {
		return nil
	}
	var out []metricmapping.MetricMapping
	for _, n := range cs.names {
		out = append(out, cs.state[n].mappings...)
	}
	return out
}

// sameMappings reports whether two readings give the same mappings, as after an edit of the
// objects' metadata or status only.
func (cs *clusterSet) sameMappings(o *clusterSet) bool {
	if cs == nil || o == nil || !slices.Equal(cs.names, o.names) {
		return false
	}
	for _, n := range cs.names {
		if !reflect.DeepEqual(cs.state[n].mappings, o.state[n].mappings) {
			return false
		}
	}
	return true
}

// count is the number of objects read.
func (cs *clusterSet) count() int {
	if cs == nil {
		return 0
	}
	return len(cs.names)
}
