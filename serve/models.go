package serve

import (
	"encoding/json"
	"errors"
	"fmt"
)

// engineModel is one model of the engine's GET /v1/models list, as the
// gateway passes it on: what identifies the model and its context length,
// not the engine's own fields (vLLM's root is a path on the engine's
// host, its permission list internal).
type engineModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// MaxModelLen is the model's context length in tokens, as vLLM and
	// SGLang report it; 0 when the engine does not say.
	MaxModelLen int64 `json:"max_model_len,omitempty"`
}

// engineModelList is the engine's /v1/models reply.
type engineModelList struct {
	Object string        `json:"object"`
	Data   []engineModel `json:"data"`
}

// decodeModels reads an engine's /v1/models reply: an object whose data
// is a list of models, each with a string id. Anything else (an error
// object in a 200, an HTML page) is an error, whose text is for the log.
func decodeModels(body []byte) (*engineModelList, error) {
	var raw struct {
		Data []struct {
			ID          json.RawMessage `json:"id"`
			Created     json.RawMessage `json:"created"`
			OwnedBy     json.RawMessage `json:"owned_by"`
			MaxModelLen json.RawMessage `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a model list: %w", err)
	}
	if raw.Data == nil {
		return nil, errors.New("not a model list: no data")
	}
	list := &engineModelList{Object: "list", Data: make([]engineModel, 0, len(raw.Data))}
	for i, m := range raw.Data {
		var em engineModel
		if json.Unmarshal(m.ID, &em.ID) != nil || em.ID == "" {
			return nil, fmt.Errorf("not a model list: data[%d].id is not a name", i)
		}
		// The optional fields are kept when they have their type.
		_ = json.Unmarshal(m.Created, &em.Created)
		_ = json.Unmarshal(m.OwnedBy, &em.OwnedBy)
		if n, ok := contextLength(m.MaxModelLen); ok {
			em.MaxModelLen = n
		}
		em.Object = "model"
		list.Data = append(list.Data, em)
	}
	return list, nil
}

// contextLength reads a context length: a positive integer that fits an
// int32 (no engine serves a longer context, and a larger value is taken
// for nonsense).
func contextLength(raw json.RawMessage) (int64, bool) {
	var n int64
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil || n <= 0 || n > 1<<31-1 {
		return 0, false
	}
	return n, true
}
