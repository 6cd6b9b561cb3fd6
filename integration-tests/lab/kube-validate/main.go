// kube-validate decodes Kubernetes manifests strictly into Kubernetes' own API types, the way an
// API server with strict field validation does: an unknown field, a wrong type or an unknown
// kind of a core API group is an error. Custom resources (Strimzi, the Prometheus Operator) are
// left to the caller, which checks them against their CRDs' schemas. One line per document:
// "ok <kind> <name>", "custom <apiVersion> <kind> <name>" or "error <kind> <name>: <why>";
// the exit status is 1 when any document failed.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func core(apiVersion, kind string) (interface{}, bool) {
	switch apiVersion + " " + kind {
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1 Service":
		return &corev1.Service{}, true
	case "v1 Secret":
		return &corev1.Secret{}, true
	case "v1 Pod":
		return &corev1.Pod{}, true
	case "apps/v1 StatefulSet":
		return &appsv1.StatefulSet{}, true
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, true
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, true
	}
	return nil, false
}

func main() {
	failed := false
	for _, file := range os.Args[1:] {
		content, err := os.ReadFile(file)
		if err != nil {
			fmt.Printf("error %s: %v\n", file, err)
			failed = true
			continue
		}
		for _, document := range bytes.Split(content, []byte("\n---")) {
			if len(strings.TrimSpace(stripComments(string(document)))) == 0 {
				continue
			}
			var h header
			if err := yaml.Unmarshal(document, &h); err != nil {
				fmt.Printf("error %s: %v\n", file, err)
				failed = true
				continue
			}
			target, known := core(h.APIVersion, h.Kind)
			if !known {
				if strings.Contains(h.APIVersion, ".") {
					fmt.Printf("custom %s %s %s\n", h.APIVersion, h.Kind, h.Metadata.Name)
					continue
				}
				fmt.Printf("error %s %s: no core type %s %s\n", h.Kind, h.Metadata.Name, h.APIVersion, h.Kind)
				failed = true
				continue
			}
			if err := yaml.UnmarshalStrict(document, target); err != nil {
				fmt.Printf("error %s %s: %v\n", h.Kind, h.Metadata.Name, err)
				failed = true
				continue
			}
			fmt.Printf("ok %s %s\n", h.Kind, h.Metadata.Name)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func stripComments(text string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
