//go:build !k8s138

package kubeeval

// The parts of cel-go by its import path before Kubernetes 1.38 (github.com/google/cel-go): the
// builds of 1.35, 1.36 (this module's modfiles) and 1.37 (the conformance
// module). celgo_k8s138.go names the same for 1.38.

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

type (
	celType      = cel.Type
	celEnvOption = cel.EnvOption

	refVal       = ref.Val
	traitsMapper = traits.Mapper
	traitsLister = traits.Lister

	typesNull      = types.Null
	typesBool      = types.Bool
	typesInt       = types.Int
	typesUint      = types.Uint
	typesDouble    = types.Double
	typesString    = types.String
	typesBytes     = types.Bytes
	typesDuration  = types.Duration
	typesTimestamp = types.Timestamp
	typesOptional  = types.Optional
	typesType      = types.Type
	typesErr       = types.Err
)

var (
	celVariable = cel.Variable
	celListType = cel.ListType
	celMapType  = cel.MapType

	celAnyType       = cel.AnyType
	celDynType       = cel.DynType
	celStringType    = cel.StringType
	celIntType       = cel.IntType
	celUintType      = cel.UintType
	celDoubleType    = cel.DoubleType
	celBoolType      = cel.BoolType
	celBytesType     = cel.BytesType
	celDurationType  = cel.DurationType
	celTimestampType = cel.TimestampType

	typesTrue       = types.True
	typesStringType = types.StringType
)
