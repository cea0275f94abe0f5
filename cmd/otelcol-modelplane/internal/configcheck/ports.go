// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// OTLP's registered ports. An exporter of one transport sent to the other's port connects,
// then every send fails with an error that names neither the port nor the transport.
const (
	grpcPort = "4317"
	httpPort = "4318"
)

// portWarning says when an OTLP exporter's endpoint names the other transport's port. A
// receiver may serve either transport on any port, so it is a warning, not an error.
func portWarning(id, field, endpoint string, grpc bool) string {
	port := endpointPort(endpoint, grpc)
	switch {
	case grpc && port == httpPort:
		return fmt.Sprintf("exporters::%s::%s: %q: port %s is OTLP/HTTP's, and this exporter sends OTLP/gRPC (port %s), which an HTTP receiver answers with \"error reading server preface\": write port %s, or use the otlp_http exporter",
			id, field, endpoint, httpPort, grpcPort, grpcPort)
	case !grpc && port == grpcPort:
		return fmt.Sprintf("exporters::%s::%s: %q: port %s is OTLP/gRPC's, and this exporter sends OTLP/HTTP (port %s), which a gRPC receiver answers with \"malformed HTTP response\": write port %s, or use the otlp_grpc exporter",
			id, field, endpoint, grpcPort, httpPort, httpPort)
	}
	return ""
}

// endpointPort is the port an endpoint names: a URL's, or for gRPC a target's (host:port,
// http(s)://host:port, dns:///host:port).
func endpointPort(endpoint string, grpc bool) string {
	if !grpc {
		u, err := url.Parse(endpoint)
		if err != nil {
			return ""
		}
		return u.Port()
	}
	target := endpoint
	if _, rest, ok := strings.Cut(target, "://"); ok {
		target = strings.TrimPrefix(rest, "/") // dns:///host:port has an empty authority
	}
	target, _, _ = strings.Cut(target, "/")
	_, port, err := net.SplitHostPort(target)
	if err != nil {
		return ""
	}
	return port
}
