//go:build k8s138

package kubeeval

// The parts of cel-go by its import path from Kubernetes 1.38 (cel.dev/cel-go v0.33):
// the build of go.v1.38.mod, with -tags k8s138. celgo.go names the same
// before 1.38. The two files differ in their import paths only.

import (
	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
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
