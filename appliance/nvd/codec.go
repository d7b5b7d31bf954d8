package nvd

import (
	"encoding/json"
	"fmt"
)

// The stored form of configurations: JSON with one- and two-letter keys, defaults omitted
// (operator OR, negate false, vulnerable false, absent bounds), about a third of NVD's size.
type storedConfiguration struct {
	Operator string       `json:"o,omitempty"`
	Negate   bool         `json:"n,omitempty"`
	Nodes    []storedNode `json:"d"`
}

type storedNode struct {
	Operator string        `json:"o,omitempty"`
	Negate   bool          `json:"n,omitempty"`
	Matches  []storedMatch `json:"m"`
}

type storedMatch struct {
	Vulnerable            bool   `json:"v,omitempty"`
	Criteria              string `json:"c"`
	MatchCriteriaID       string `json:"i,omitempty"`
	VersionStartIncluding string `json:"si,omitempty"`
	VersionStartExcluding string `json:"se,omitempty"`
	VersionEndIncluding   string `json:"ei,omitempty"`
	VersionEndExcluding   string `json:"ee,omitempty"`
}

// EncodeConfigurations returns the compact stored form of configs; nil for none.
func EncodeConfigurations(configs []Configuration) []byte {
	if len(configs) == 0 {
		return nil
	}
	stored := make([]storedConfiguration, len(configs))
	for i, c := range configs {
		stored[i] = storedConfiguration{Operator: storedOperator(c.Operator), Negate: c.Negate,
			Nodes: make([]storedNode, len(c.Nodes))}
		for j, n := range c.Nodes {
			stored[i].Nodes[j] = storedNode{Operator: storedOperator(n.Operator), Negate: n.Negate,
				Matches: make([]storedMatch, len(n.Matches))}
			for k, m := range n.Matches {
				stored[i].Nodes[j].Matches[k] = storedMatch(m)
			}
		}
	}
	// Marshalling plain strings and bools cannot fail.
	data, _ := json.Marshal(stored)
	return data
}

// DecodeConfigurations reverses EncodeConfigurations; empty input is no configurations.
func DecodeConfigurations(data []byte) ([]Configuration, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var stored []storedConfiguration
	if err := json.Unmarshal(data, &stored); err != nil {
		return nil, fmt.Errorf("decode stored configurations: %w", err)
	}
	configs := make([]Configuration, len(stored))
	for i, s := range stored {
		nodes, err := decodeNodes(i, s.Nodes)
		if err != nil {
			return nil, err
		}
		op, err := operator(fmt.Sprintf("configurations[%d].operator", i), s.Operator)
		if err != nil {
			return nil, fmt.Errorf("decode stored configurations: %w", err)
		}
		configs[i] = Configuration{Operator: op, Negate: s.Negate, Nodes: nodes}
	}
	return configs, nil
}

func decodeNodes(config int, stored []storedNode) ([]Node, error) {
	nodes := make([]Node, len(stored))
	for j, s := range stored {
		op, err := operator(fmt.Sprintf("configurations[%d].nodes[%d].operator", config, j), s.Operator)
		if err != nil {
			return nil, fmt.Errorf("decode stored configurations: %w", err)
		}
		matches := make([]Match, len(s.Matches))
		for k, m := range s.Matches {
			matches[k] = Match(m)
		}
		nodes[j] = Node{Operator: op, Negate: s.Negate, Matches: matches}
	}
	return nodes, nil
}

// storedOperator leaves out the default operator.
func storedOperator(op string) string {
	if op == OperatorOR {
		return ""
	}
	return op
}
