// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

// ScrapeLimit is what one target may send per scrape under the default (body_size_limit and
// sample_limit); the host config and the chart carry the same, and preview applies them, so
// that it refuses the page the collector would refuse.
type ScrapeLimit struct {
	BodySize string `yaml:"body_size_limit"`
	Samples  int    `yaml:"sample_limit"`
}

func (l ScrapeLimit) String() string {
	return fmt.Sprintf("body_size_limit %s, sample_limit %d series kept", l.BodySize, l.Samples)
}

// ScrapeLimits reads them from default.yaml.
var ScrapeLimits = sync.OnceValue(func() ScrapeLimit {
	var doc struct {
		Receivers struct {
			Scraper struct {
				Config struct {
					Global ScrapeLimit `yaml:"global"`
				} `yaml:"config"`
			} `yaml:"node_scrape"`
		} `yaml:"receivers"`
	}
	if err := yaml.Unmarshal(YAML, &doc); err != nil {
		panic(err) // embedded: TestScrapeLimits reads it
	}
	return doc.Receivers.Scraper.Config.Global
})
