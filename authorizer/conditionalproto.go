package authorizer

import (
	"errors"
	"fmt"
	"io"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	"google.golang.org/protobuf/encoding/protowire"
)

// This file reads status.conditionalDecision from a protobuf answer (1.38),
// which k8s.io/api v0.37's generated code skips as an unknown field. It
// reads as that generated code does: a message field given more than once
// is merged, a repeated one appended to, a scalar's last value kept, an
// unknown field skipped, a known field of the wrong wire type an error.
// Error texts follow the generated code's where it is simple to.

// maxProtoDepth bounds the nesting of unions read; the generated code has
// no bound, but no answer nests decisions this deep.
const maxProtoDepth = 10000

var errProtoDepth = errors.New("proto: conditionalDecision nested too deeply")

// protoFields walks the fields of a message, calling field with the value
// of each length-delimited field and nil for the others; msg names the
// message in errors.
func protoFields(b []byte, msg string, field func(num protowire.Number, typ protowire.Type, v []byte) error) error {
	for len(b) > 0 {
		tag, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return protoErr(n)
		}
		// The generated code's reading of a tag: the field number as an
		// int32, which must be positive.
		fieldNum, typ := int32(tag>>3), protowire.Type(tag&7)
		if fieldNum <= 0 {
			return fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", msg, fieldNum, typ)
		}
		num := protowire.Number(fieldNum)
		if typ == protowire.EndGroupType {
			return fmt.Errorf("proto: %s: wiretype end group for non-group", msg)
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protoErr(n)
		}
		b = b[n:]
		if err := field(num, typ, v); err != nil {
			return err
		}
	}
	return nil
}

func protoErr(n int) error {
	err := protowire.ParseError(n)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// wantBytes is the error of a known field of another wire type than
// length-delimited.
func wantBytes(typ protowire.Type, name string) error {
	if typ == protowire.BytesType {
		return nil
	}
	return fmt.Errorf("proto: wrong wireType = %d for field %s", typ, name)
}

// protoConditionalDecision reads status.conditionalDecision from a
// SubjectAccessReview message.
func protoConditionalDecision(sar []byte) (*sarv1.ConditionsAwareDecision, error) {
	var cd *sarv1.ConditionsAwareDecision
	err := protoFields(sar, "SubjectAccessReview", func(num protowire.Number, typ protowire.Type, v []byte) error {
		if num != 3 || typ != protowire.BytesType { // status; the rest is checked by the v0.37 decoding
			return nil
		}
		return protoFields(v, "SubjectAccessReviewStatus", func(num protowire.Number, typ protowire.Type, v []byte) error {
			if num != 5 {
				return nil
			}
			if err := wantBytes(typ, "ConditionalDecision"); err != nil {
				return err
			}
			if cd == nil {
				cd = &sarv1.ConditionsAwareDecision{}
			}
			return protoDecision(v, cd, 0)
		})
	})
	return cd, err
}

func protoDecision(b []byte, d *sarv1.ConditionsAwareDecision, depth int) error {
	if depth > maxProtoDepth {
		return errProtoDepth
	}
	return protoFields(b, "ConditionsAwareDecision", func(num protowire.Number, typ protowire.Type, v []byte) error {
		var name string
		switch num {
		case 1:
			name = "Type"
		case 2:
			name = "Deny"
		case 3:
			name = "NoOpinion"
		case 4:
			name = "Allow"
		case 5:
			name = "ConditionsMap"
		case 6:
			name = "Union"
		default:
			return nil
		}
		if err := wantBytes(typ, name); err != nil {
			return err
		}
		switch num {
		case 1:
			d.Type = sarv1.ConditionsAwareDecisionType(v)
		case 2:
			return protoUnconditional(v, &d.Deny)
		case 3:
			return protoUnconditional(v, &d.NoOpinion)
		case 4:
			return protoUnconditional(v, &d.Allow)
		case 5:
			if d.ConditionsMap == nil {
				d.ConditionsMap = &sarv1.ConditionsMap{}
			}
			return protoConditionsMap(v, d.ConditionsMap)
		case 6:
			var m sarv1.NamedConditionsAwareDecision
			if err := protoNamed(v, &m, depth+1); err != nil {
				return err
			}
			d.Union = append(d.Union, m)
		}
		return nil
	})
}

func protoUnconditional(b []byte, u **sarv1.UnconditionalDecision) error {
	if *u == nil {
		*u = &sarv1.UnconditionalDecision{}
	}
	return protoFields(b, "UnconditionalDecision", func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch num {
		case 1:
			if err := wantBytes(typ, "Reason"); err != nil {
				return err
			}
			(*u).Reason = string(v)
		case 2:
			if err := wantBytes(typ, "EvaluationError"); err != nil {
				return err
			}
			(*u).EvaluationError = string(v)
		}
		return nil
	})
}

func protoConditionsMap(b []byte, m *sarv1.ConditionsMap) error {
	return protoFields(b, "ConditionsMap", func(num protowire.Number, typ protowire.Type, v []byte) error {
		var list *[]sarv1.Condition
		var name string
		switch num {
		case 1:
			list, name = &m.DenyConditions, "DenyConditions"
		case 2:
			list, name = &m.NoOpinionConditions, "NoOpinionConditions"
		case 3:
			list, name = &m.AllowConditions, "AllowConditions"
		default:
			return nil
		}
		if err := wantBytes(typ, name); err != nil {
			return err
		}
		var c sarv1.Condition
		err := protoFields(v, "Condition", func(num protowire.Number, typ protowire.Type, v []byte) error {
			var dst *string
			switch num {
			case 1:
				dst, name = &c.ID, "ID"
			case 2:
				dst, name = &c.Condition, "Condition"
			case 3:
				dst, name = &c.Type, "Type"
			case 4:
				dst, name = &c.Description, "Description"
			default:
				return nil
			}
			if err := wantBytes(typ, name); err != nil {
				return err
			}
			*dst = string(v)
			return nil
		})
		if err != nil {
			return err
		}
		*list = append(*list, c)
		return nil
	})
}

func protoNamed(b []byte, m *sarv1.NamedConditionsAwareDecision, depth int) error {
	return protoFields(b, "NamedConditionsAwareDecision", func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch num {
		case 1:
			if err := wantBytes(typ, "AuthorizerName"); err != nil {
				return err
			}
			m.AuthorizerName = string(v)
		case 2:
			if err := wantBytes(typ, "Decision"); err != nil {
				return err
			}
			return protoDecision(v, &m.Decision, depth)
		}
		return nil
	})
}
