// Package options holds the command-line options the components share.
package options

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"kubecore.io/apimachinery/pkg/runtime/protobuf"
)

// DefaultContentType is how the components talk to the API server unless
// told otherwise: Kubernetes' protobuf, as Kubernetes' own components do.
// It is a third of JSON's decoding work on every watch event they receive.
const DefaultContentType = protobuf.ContentType

// contentTypes are the values --kube-api-content-type takes.
var contentTypes = []string{protobuf.ContentType, "application/json"}

// AddContentTypeFlag adds --kube-api-content-type, bound to p.
func AddContentTypeFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "kube-api-content-type", *p, "Encoding of requests to the API server: "+strings.Join(contentTypes, " or "))
}

// ValidateContentType checks a --kube-api-content-type value.
func ValidateContentType(contentType string) error {
	if !slices.Contains(contentTypes, contentType) {
		return fmt.Errorf("--kube-api-content-type %q: must be %s", contentType, strings.Join(contentTypes, " or "))
	}
	return nil
}
