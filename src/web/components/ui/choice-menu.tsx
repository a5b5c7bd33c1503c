import ChevronDown from 'lucide-react/icons/chevron-down'
import { buttonClass } from './button'
import { Menu, MenuContent, MenuRadioGroup, MenuRadioItem, MenuTrigger } from './dropdown-menu'

/** A button opening a menu of values with the current one checked (the Change Status menus). */
export function ChoiceMenu<T extends string>({
  label,
  accessibleLabel,
  value,
  options,
  onChange,
}: {
  label: string
  accessibleLabel: string
  value: T
  options: ReadonlyArray<{ value: T; label: string }>
  onChange: (value: T) => void
}) {
  return (
    <Menu>
      <MenuTrigger className={buttonClass('outline', 'sm')} aria-label={accessibleLabel}>
        {label}
        <ChevronDown aria-hidden className="size-4" />
      </MenuTrigger>
      <MenuContent>
        <MenuRadioGroup value={value} onChange={onChange}>
          {options.map((option) => (
            <MenuRadioItem key={option.value} value={option.value}>
              {option.label}
            </MenuRadioItem>
          ))}
        </MenuRadioGroup>
      </MenuContent>
    </Menu>
  )
}
