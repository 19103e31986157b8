package authzconfig

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// protobufPrefix marks data for kube-apiserver's protobuf serializer. No
// AuthorizationConfiguration has a protobuf form, but the decoder that
// kube-apiserver uses for the file still claims such data, and says so.
const protobufPrefix = "k8s\x00"

func hasProtobufPrefix(data []byte) bool {
	return len(data) >= len(protobufPrefix) && string(data[:len(protobufPrefix)]) == protobufPrefix
}

// protobufMessage is what kube-apiserver's protobuf decoder needs of a type.
type protobufMessage interface {
	Reset()
	Unmarshal([]byte) error
}

func decodeProtobuf(data []byte) (*Configuration, error) {
	if len(data) == len(protobufPrefix) {
		return nil, errors.New("empty body")
	}
	var envelope runtime.Unknown
	if err := envelope.Unmarshal(data[len(protobufPrefix):]); err != nil {
		return nil, err
	}
	gvk := groupVersionKind{kind: envelope.Kind}
	// An apiVersion that does not parse counts as absent here.
	if parsed, err := interpretAPIVersion(envelope.APIVersion); err == nil {
		gvk.group, gvk.version = parsed.group, parsed.version
	}
	if gvk.kind == "" {
		return nil, &decodeError{msg: fmt.Sprintf("Object 'Kind' is missing in '%#v'", envelope.TypeMeta)}
	}
	if gvk.version == "" {
		return nil, &decodeError{msg: fmt.Sprintf("Object 'apiVersion' is missing in '%#v'", envelope.TypeMeta)}
	}
	t, err := targetFor(gvk)
	if err != nil {
		return nil, err
	}
	message, ok := t.into.(protobufMessage)
	if !ok {
		return nil, fmt.Errorf("object %T does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message", t.into)
	}
	message.Reset()
	if err := message.Unmarshal(envelope.Raw); err != nil {
		return nil, err
	}
	return t.finish(nil)
}
