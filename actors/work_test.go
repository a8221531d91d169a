package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWorkFraction(t *testing.T) {
	var nilWork *Work
	nilWork.Expect(3)
	nilWork.Done(1)
	nilWork.Stage(0, 2)
	assert.Equal(t, -1.0, nilWork.Fraction())

	w := &Work{}
	assert.Equal(t, -1.0, w.Fraction(), "nothing declared")
	w.Expect(4)
	w.Done(1)
	assert.Equal(t, 0.25, w.Fraction())
	w.Stage(1, 2) // the second of two simulations, nothing declared yet
	assert.Equal(t, 0.5, w.Fraction())
	w.Expect(10)
	w.Done(5)
	assert.Equal(t, 0.75, w.Fraction())
	w.Done(50)
	assert.Equal(t, 1.0, w.Fraction(), "never above 1")
}
