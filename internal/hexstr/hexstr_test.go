package hexstr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsHexAndIsAddress(t *testing.T) {
	t.Parallel()
	assert.True(t, IsHex("0123456789abcdefABCDEF"))
	assert.False(t, IsHex(""))
	assert.False(t, IsHex("12g4"))
	assert.True(t, IsAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"))
	assert.True(t, IsAddress("0X209693BC6AFC0C5328BA36FAF03C514EF312287C"))
	assert.False(t, IsAddress("209693Bc6afc0C5328bA36FaF03C514EF312287C"), "the 0x is required")
	assert.False(t, IsAddress("0x209693Bc6afc0C5328bA36FaF03C514EF31228"), "19 bytes")
	assert.False(t, IsAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287Z"))
	d, ok := Digit('F')
	assert.True(t, ok)
	assert.Equal(t, byte(15), d)
	_, ok = Digit('x')
	assert.False(t, ok)
}
