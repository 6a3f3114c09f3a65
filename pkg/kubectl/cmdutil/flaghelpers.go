package cmdutil

import (
	"github.com/spf13/pflag"

	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// AddFilenameFlags registers -f and -R.
func AddFilenameFlags(fs *pflag.FlagSet, o *resource.FilenameOptions, usage string) {
	fs.StringSliceVarP(&o.Filenames, "filename", "f", nil, "Filename, directory, or URL to files "+usage)
	fs.BoolVarP(&o.Recursive, "recursive", "R", false, "Process the directory used in -f, --filename recursively. Useful when you want to manage related manifests organized within the same directory.")
}

// AddSelectorFlags registers -l and --field-selector.
func AddSelectorFlags(fs *pflag.FlagSet, label, field *string) {
	fs.StringVarP(label, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fs.StringVar(field, "field-selector", "", "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type.")
}
